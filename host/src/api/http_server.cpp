#include "api/http_server.hpp"

#include "api/access_policy.hpp"
#include "api/beast_request.hpp"
#include "api/browser_guard.hpp"
#include "api/event_stream.hpp"
#include "api/run_streams.hpp"
#include "api/server_errors.hpp"
#include "api/slow_work.hpp"
#include "api/worker_dispatch.hpp"
#include "api/web_base_path.hpp"
#include "api/ws_session.hpp"
#include "core/log.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <map>
#include <atomic>
#include <csignal>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

#include <stdlib.h>
#include <unistd.h>

namespace agentry::api {
namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;

/// A connection waiting for a request: the first thing to let go of when the daemon is
/// full. `stream` and `waiting` are touched on the connection's strand only.
struct WaitingConnection {
  net::any_io_executor executor;
  beast::tcp_stream* stream = nullptr;
  bool waiting = false;
  std::list<std::shared_ptr<WaitingConnection>>::iterator position;  // in Impl::waiting, under its mutex
  bool listed = false;                                                // under Impl::waiting_mutex
};

struct HttpServer::Impl {
  Impl(const Router& r, ServerLimits l, ServerThreads t)
      : router(r),
        limits(l),
        threads(t),
        workers(t.workers),
        slow_workers(t.slow_workers),
        blocking_workers(t.blocking_workers),
        acceptor(ioc),
        signals(ioc, SIGINT, SIGTERM) {}

  const Router& router;
  const Operations* operations = nullptr;
  engine::Engine* engine = nullptr;
  const AccessPolicy* access = nullptr;
  const BrowserGuard* guard = nullptr;
  std::string web_base_path;  // a reverse proxy's mount, accepted in front of every path
  UploadSpool spool;
  ServerLimits limits;
  ServerThreads threads;
  net::io_context ioc;
  net::thread_pool workers;
  net::thread_pool slow_workers;  // is_slow_path() requests: long git work never holds `workers`
  net::thread_pool blocking_workers;  // answers that wait on a program (HttpResponse::blocking)
  tcp::acceptor acceptor;
  net::signal_set signals;
  std::atomic<int> stop_signal{0};
  std::atomic<std::size_t> connections{0};
  std::atomic<std::size_t> in_flight{0};
  std::atomic<bool> stopping{false};
  std::atomic<std::size_t> refusing{0};
  std::mutex waiting_mutex;
  std::list<std::shared_ptr<WaitingConnection>> waiting;  // oldest first
};

namespace {

/// parse_target() with the web base path taken off, so routes, auth and the slow lane
/// see the same path however the request was mounted.
bool parse_mounted_target(const HttpServer::Impl& impl, const std::string& target, std::string& path,
                          std::map<std::string, std::string>& query) {
  const bool ok = parse_target(target, path, query);
  strip_web_base_path(impl.web_base_path, path);
  return ok;
}

class Counted {
 public:
  explicit Counted(std::atomic<std::size_t>& n) : n_(n) { ++n_; }
  ~Counted() { --n_; }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;

 private:
  std::atomic<std::size_t>& n_;
};

http::response<http::string_body> to_beast(const HttpResponse& response, unsigned version, bool keep_alive) {
  http::response<http::string_body> res{static_cast<http::status>(response.status), version};
  res.set(http::field::server, "agentry");
  res.set(http::field::content_type, response.content_type);
  res.set("X-Content-Type-Options", "nosniff");
  for (const auto& [name, value] : response.headers) res.set(name, value);
  res.keep_alive(keep_alive);
  res.body() = response.body;
  res.prepare_payload();
  return res;
}

// GCC 12 destroys lambda temporaries created inside a co_await expression twice, so
// the callables handed to on_workers() are built in these plain functions instead.

/// Engine commands block until their write commits: handlers never run on I/O threads.
/// Workspace work (diffs, searches) may take seconds: it runs on a pool of its own.
net::awaitable<HttpResponse> dispatch_on_workers(HttpServer::Impl& impl, HttpRequest request) {
  const Router& router = impl.router;
  auto& pool = is_slow_path(request.path) ? impl.slow_workers : impl.workers;
  return on_workers<HttpResponse>(pool, [&router, request = std::move(request)]() mutable {
    return router.dispatch(std::move(request));
  });
}

/// The part of an answer that waits on a program, on the blocking pool.
net::awaitable<HttpResponse> finish_on_blocking_pool(HttpServer::Impl& impl, std::function<HttpResponse()> blocking) {
  return on_workers<HttpResponse>(impl.blocking_workers, std::move(blocking));
}

/// poll() may read the store, so it runs on the worker pool like request handlers.
net::awaitable<StreamBatch> poll_on_workers(HttpServer::Impl& impl, std::shared_ptr<EventStream> source) {
  return on_workers<StreamBatch>(impl.workers, [source = std::move(source)]() {
    return poll_stream(*source, stream_batch_frames, false);
  });
}

/// Wakes a stream's writer: set by the source's waker, checked before sleeping.
struct StreamWake {
  explicit StreamWake(const net::any_io_executor& executor) : timer(executor) {}
  std::atomic<bool> pending{false};
  bool hung_up = false;  // [strand] the client closed its side
  net::steady_timer timer;
};

/// A stream's client sends nothing after its request, so its side of the connection
/// ending (EOF, a reset) means it left: the writer is woken to give up its connection
/// slot now, not at its next write, which may be a heartbeat many seconds away.
/// Reads the socket beneath the tcp_stream, whose timer belongs to the writes.
net::awaitable<void> watch_for_hangup(tcp::socket& socket, std::shared_ptr<StreamWake> wake) {
  std::array<char, 512> ignored;
  for (;;) {
    auto [ec, n] = co_await socket.async_read_some(net::buffer(ignored), net::as_tuple(net::use_awaitable));
    if (ec) break;  // bytes after the request are not ours to read; only the end matters
  }
  // `socket` may be gone by now (the stream ended first): only `wake` is touched.
  wake->hung_up = true;
  wake->timer.cancel();
}

/// Writes `buffers` in one go; a client that takes longer than the write timeout to
/// accept them has stalled and is dropped (it resumes by cursor).
template <class Buffers>
net::awaitable<bool> write_all(beast::tcp_stream& stream, const Buffers& buffers, const ServerLimits& limits) {
  stream.expires_after(limits.write_timeout);
  auto [ec, n] = co_await net::async_write(stream, buffers, net::as_tuple(net::use_awaitable));
  co_return !ec;
}

/// Serves a Server-Sent Events response until the client goes away, the source
/// closes, or the daemon stops. The connection is not reused afterwards. Frames are
/// shared with every other subscriber: they are written as they are, gathered.
net::awaitable<void> serve_stream(HttpServer::Impl& impl, beast::tcp_stream& stream, const HttpResponse& response,
                                  unsigned version) {
  http::response<http::empty_body> head{http::status::ok, version};
  head.set(http::field::server, "agentry");
  head.set(http::field::content_type, response.content_type);
  for (const auto& [name, value] : response.headers) head.set(name, value);
  head.keep_alive(false);  // the body ends when the connection closes
  http::response_serializer<http::empty_body> serializer{head};
  stream.expires_after(impl.limits.write_timeout);
  auto [head_ec, head_n] = co_await http::async_write_header(stream, serializer, net::as_tuple(net::use_awaitable));
  if (head_ec) co_return;

  auto wake = std::make_shared<StreamWake>(stream.get_executor());
  net::co_spawn(stream.get_executor(), watch_for_hangup(stream.socket(), wake), net::detached);
  response.stream->start([weak = std::weak_ptr<StreamWake>(wake)] {
    auto w = weak.lock();
    if (!w) return;
    w->pending = true;
    net::post(w->timer.get_executor(), [w] { w->timer.cancel(); });
  });
  std::vector<net::const_buffer> buffers;
  for (;;) {
    wake->pending = false;
    StreamBatch batch = co_await poll_on_workers(impl, response.stream);
    if (!batch.frames.empty()) {
      buffers.clear();
      for (const auto& frame : batch.frames) buffers.emplace_back(net::buffer(frame->text));
      if (!co_await write_all(stream, buffers, impl.limits)) break;
    }
    if (batch.closed || impl.stopping || wake->hung_up) break;
    if (wake->pending || batch.more) continue;
    wake->timer.expires_after(impl.limits.sse_heartbeat);
    auto [timer_ec] = co_await wake->timer.async_wait(net::as_tuple(net::use_awaitable));
    if (impl.stopping || wake->hung_up) break;
    if (!timer_ec && !wake->pending) {
      static constexpr std::string_view heartbeat = ": heartbeat\n\n";
      if (!co_await write_all(stream, net::buffer(heartbeat.data(), heartbeat.size()), impl.limits)) break;
    }
  }
}

HttpResponse body_too_large(std::uint64_t limit) {
  return error_response(core::ErrorCode::payload_too_large,
                        "request body is larger than " + std::to_string(limit) + " bytes", {{"limit", limit}});
}

/// The response to a request that could not be read, or nothing when the peer is gone.
std::optional<HttpResponse> read_failure_response(const boost::system::error_code& ec, const ServerLimits& limits,
                                                  std::uint64_t body_limit) {
  if (ec == http::error::body_limit) return body_too_large(body_limit);
  if (ec == http::error::header_limit) {
    auto r = error_response(core::ErrorCode::invalid_request,
                            "request headers are larger than " + std::to_string(limits.max_header_bytes) + " bytes",
                            {{"limit", limits.max_header_bytes}});
    r.status = 431;
    return r;
  }
  if (ec.category() == http::make_error_code(http::error::bad_target).category())
    return error_response(core::ErrorCode::invalid_request, "malformed HTTP request: " + ec.message());
  return std::nullopt;  // timeout, reset, EOF: nobody to answer
}

/// A download: the file's content as the body, read from disk as it is sent.
net::awaitable<void> write_file_response(beast::tcp_stream& stream, const HttpResponse& response, unsigned version,
                                         bool keep_alive, const ServerLimits& limits, bool& ok) {
  http::response<http::file_body> res{static_cast<http::status>(response.status), version};
  beast::error_code open_ec;
  res.body().open(response.file.c_str(), beast::file_mode::scan, open_ec);
  if (open_ec) {
    auto failed = error_response(core::ErrorCode::internal, "cannot read the file to send: " + open_ec.message());
    auto err = to_beast(failed, version, keep_alive);
    stream.expires_after(limits.write_timeout);
    auto [ec, n] = co_await http::async_write(stream, err, net::as_tuple(net::use_awaitable));
    ok = !ec;
    co_return;
  }
  res.set(http::field::server, "agentry");
  res.set(http::field::content_type, response.content_type);
  res.set("X-Content-Type-Options", "nosniff");
  for (const auto& [name, value] : response.headers) res.set(name, value);
  res.keep_alive(keep_alive);
  res.prepare_payload();
  http::response_serializer<http::file_body> serializer{res};
  // The write timeout is per piece, so a large file on a slow link is not cut off
  // while it moves; a stalled reader still is.
  ok = true;
  while (!serializer.is_done()) {
    stream.expires_after(limits.write_timeout);
    auto [ec, n] = co_await http::async_write_some(stream, serializer, net::as_tuple(net::use_awaitable));
    if (ec) {
      ok = false;
      co_return;
    }
  }
}

net::awaitable<void> write_response(beast::tcp_stream& stream, const HttpResponse& response, unsigned version,
                                    bool keep_alive, const ServerLimits& limits, bool& ok) {
  if (!response.file.empty()) {
    co_await write_file_response(stream, response, version, keep_alive, limits, ok);
    co_return;
  }
  auto res = to_beast(response, version, keep_alive);
  stream.expires_after(limits.write_timeout);
  auto [ec, n] = co_await http::async_write(stream, res, net::as_tuple(net::use_awaitable));
  ok = !ec;
}

void list_waiting(HttpServer::Impl& impl, const std::shared_ptr<WaitingConnection>& slot) {
  std::lock_guard lock(impl.waiting_mutex);
  slot->position = impl.waiting.insert(impl.waiting.end(), slot);
  slot->listed = true;
}

void unlist_waiting(HttpServer::Impl& impl, const std::shared_ptr<WaitingConnection>& slot) {
  std::lock_guard lock(impl.waiting_mutex);
  if (slot->listed) impl.waiting.erase(slot->position);
  slot->listed = false;
}

/// Closes the connection that has waited longest for a request. False when none waits.
bool evict_oldest_waiting(HttpServer::Impl& impl) {
  std::shared_ptr<WaitingConnection> oldest;
  {
    std::lock_guard lock(impl.waiting_mutex);
    if (impl.waiting.empty()) return false;
    oldest = impl.waiting.front();
    impl.waiting.pop_front();
    oldest->listed = false;
  }
  net::post(oldest->executor, [oldest] {
    if (!oldest->waiting || !oldest->stream) return;  // it got its request meanwhile
    boost::system::error_code ignored;
    oldest->stream->socket().close(ignored);
  });
  return true;
}

/// Anything that is not exactly "chunked" (gzip, a list ending in chunked...) is a
/// coding we would otherwise hand on still encoded.
bool unsupported_transfer_coding(const http::request_parser<http::string_body>& parser) {
  auto it = parser.get().find(http::field::transfer_encoding);
  if (it == parser.get().end()) return false;
  std::string value(it->value());
  std::transform(value.begin(), value.end(), value.begin(), [](unsigned char c) { return std::tolower(c); });
  auto first = value.find_first_not_of(" \t");
  auto last = value.find_last_not_of(" \t");
  return first == std::string::npos || value.substr(first, last - first + 1) != "chunked";
}

/// Why `request` may not go on: a web page's request (browser_guard.hpp), or missing
/// credentials on a protected path. Otherwise nothing, and the request carries the run a
/// per-run token limits it to.
std::optional<HttpResponse> admission_refusal(HttpServer::Impl& impl, HttpRequest& request, bool upgrade) {
  if (impl.guard)
    if (auto refused = impl.guard->refusal(request, upgrade)) return refused;
  if (!impl.access || !(upgrade || is_protected_path(request.path))) return std::nullopt;
  auto scope = impl.access->authenticate(request);
  if (!scope) return AccessPolicy::refusal();
  request.scope_run_id = std::move(*scope);
  return std::nullopt;
}

/// A request whose body is a file (UploadSpool): checked for admission before a byte of
/// the body is read, then the body goes to a spool file, read with a timeout per piece
/// so a large upload on a slow link is not cut off while it moves. `keep`: the
/// connection may serve another request.
net::awaitable<void> serve_spooled(HttpServer::Impl& impl, beast::tcp_stream& stream, beast::flat_buffer& buffer,
                                   http::request_parser<http::string_body>& header, std::uint64_t limit, bool& keep) {
  keep = false;
  HttpRequest request = header_to_request(header.get());
  const unsigned version = header.get().version();
  const bool keep_alive = header.get().keep_alive() && !impl.stopping;
  const std::string request_id = new_request_id();
  const std::string what = request.method + " " + request.target.substr(0, 200);
  parse_mounted_target(impl, request.target, request.path, request.query);
  Counted busy(impl.in_flight);
  HttpResponse response;
  bool body_read = false;
  if (auto refused = admission_refusal(impl, request, false)) {
    response = std::move(*refused);
  } else {
    std::string spool = (impl.spool.dir / "upload-XXXXXX").string();
    int fd = ::mkstemp(spool.data());
    if (fd < 0) {
      response = error_response(core::ErrorCode::internal, "cannot create a file for the upload in " +
                                                               impl.spool.dir.string() + ": " + std::strerror(errno));
    } else {
      ::close(fd);
      struct Remove {  // the handler moved it, or it is not wanted
        const std::string& path;
        ~Remove() { ::unlink(path.c_str()); }
      } remove_spool{spool};
      boost::system::error_code ec;
      if (header.get()[http::field::expect] == "100-continue") {
        http::response<http::empty_body> cont{http::status::continue_, version};
        stream.expires_after(impl.limits.write_timeout);
        auto [cont_ec, cont_n] = co_await http::async_write(stream, cont, net::as_tuple(net::use_awaitable));
        ec = cont_ec;
      }
      http::request_parser<http::file_body> body{std::move(header)};
      body.body_limit(limit);
      if (!ec) body.get().body().open(spool.c_str(), beast::file_mode::write, ec);
      while (!ec && !body.is_done()) {
        stream.expires_after(impl.limits.read_timeout);
        auto [read_ec, n] = co_await http::async_read_some(stream, buffer, body, net::as_tuple(net::use_awaitable));
        ec = read_ec;
      }
      if (body.get().body().is_open()) body.get().body().close();
      if (ec) {
        auto failure = read_failure_response(ec, impl.limits, limit);
        if (!failure) co_return;  // the client is gone
        response = std::move(*failure);
      } else {
        body_read = true;
        request.body_file = spool;
        response = co_await dispatch_on_workers(impl, std::move(request));
        if (response.blocking) response = co_await finish_on_blocking_pool(impl, std::move(response.blocking));
      }
    }
  }
  response = client_response(std::move(response), request_id, what);
  // A body left unread would be taken for the next request: close instead.
  const bool reuse = keep_alive && body_read;
  bool ok = false;
  co_await write_response(stream, response, version, reuse, impl.limits, ok);
  keep = ok && reuse;
}

net::awaitable<void> session(HttpServer::Impl& impl, tcp::socket socket) {
  Counted connection(impl.connections);
  beast::tcp_stream stream(std::move(socket));
  beast::flat_buffer buffer;
  auto slot = std::make_shared<WaitingConnection>();
  slot->executor = stream.get_executor();
  slot->stream = &stream;
  struct Unlist {
    HttpServer::Impl& impl;
    std::shared_ptr<WaitingConnection>& slot;
    ~Unlist() {
      slot->waiting = false;
      slot->stream = nullptr;
      unlist_waiting(impl, slot);
    }
  } unlist{impl, slot};
  bool first_request = true;
  for (;;) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(impl.limits.max_header_bytes));
    // The body's limit depends on the route (uploads are larger): set once the header is in.
    parser.body_limit(boost::none);
    stream.expires_after(first_request ? impl.limits.read_timeout : impl.limits.idle_timeout);
    first_request = false;

    slot->waiting = true;
    list_waiting(impl, slot);
    auto [header_ec, header_n] =
        co_await http::async_read_header(stream, buffer, parser, net::as_tuple(net::use_awaitable));
    slot->waiting = false;
    unlist_waiting(impl, slot);
    stream.expires_after(impl.limits.read_timeout);
    boost::system::error_code ec = header_ec;
    if (!ec && unsupported_transfer_coding(parser)) {
      auto response = error_response(core::ErrorCode::invalid_request,
                                     "Transfer-Encoding '" + std::string(parser.get()[http::field::transfer_encoding]) +
                                         "' is not supported; send the body plainly or with 'chunked' alone",
                                     {{"header", "Transfer-Encoding"}});
      response.status = 501;
      bool ok = false;
      co_await write_response(stream, client_response(std::move(response), new_request_id(), "transfer coding"),
                              parser.get().version(), false, impl.limits, ok);
      break;
    }
    std::optional<std::uint64_t> spool_limit;
    if (!ec) {
      std::string path;
      std::map<std::string, std::string> query;
      if (impl.spool.limit_for && parse_mounted_target(impl, std::string(parser.get().target()), path, query))
        spool_limit = impl.spool.limit_for(parser.get().method_string(), path);
      const std::uint64_t limit = spool_limit.value_or(impl.limits.max_body_bytes);
      if (auto length = parser.content_length(); length && *length > limit) {
        bool ok = false;
        co_await write_response(stream, client_response(body_too_large(limit), new_request_id(), "request body"),
                                parser.get().version(), false, impl.limits, ok);
        break;
      }
      parser.body_limit(limit);  // chunked bodies are counted as they arrive
    }
    if (!ec && spool_limit) {
      bool keep = false;
      co_await serve_spooled(impl, stream, buffer, parser, *spool_limit, keep);
      if (!keep) break;
      continue;
    }
    if (!ec && parser.get()[http::field::expect] == "100-continue") {
      http::response<http::empty_body> cont{http::status::continue_, parser.get().version()};
      auto [cont_ec, cont_n] = co_await http::async_write(stream, cont, net::as_tuple(net::use_awaitable));
      ec = cont_ec;
    }
    if (!ec && !parser.is_done()) {
      auto [body_ec, body_n] = co_await http::async_read(stream, buffer, parser, net::as_tuple(net::use_awaitable));
      ec = body_ec;
    }
    if (ec) {
      if (auto response = read_failure_response(ec, impl.limits, impl.limits.max_body_bytes)) {
        bool ok = false;
        co_await write_response(stream, *response, 11, false, impl.limits, ok);
      }
      break;
    }

    const auto& req = parser.get();
    const unsigned version = req.version();
    const bool upgrade = websocket::is_upgrade(req);
    // A refused upgrade ends the connection: the client asked for another protocol.
    const bool keep_alive = req.keep_alive() && !impl.stopping && !upgrade;
    HttpRequest request = to_request(req);
    const std::string request_id = new_request_id();
    const std::string what = request.method + " " + request.target.substr(0, 200);
    HttpResponse response;
    {
      Counted busy(impl.in_flight);
      if (request.target.empty() || request.target[0] != '/') {
        response = error_response(core::ErrorCode::invalid_request, "request target must be an absolute path");
      } else if (!parse_mounted_target(impl, request.target, request.path, request.query)) {
        response = error_response(core::ErrorCode::invalid_request,
                                  "malformed query string: bad percent-encoding, %00 or invalid UTF-8");
      } else if (auto refused = admission_refusal(impl, request, upgrade)) {
        response = std::move(*refused);  // before any event-stream header or handshake
      } else if (upgrade) {
        if (request.path != "/" || !impl.operations)
          response = error_response(core::ErrorCode::not_found, "WebSocket JSON-RPC is served on / only");
      } else {
        response = co_await dispatch_on_workers(impl, std::move(request));
        if (response.blocking) response = co_await finish_on_blocking_pool(impl, std::move(response.blocking));
      }
    }
    if (!(upgrade && response.body.empty())) response = client_response(std::move(response), request_id, what);
    if (upgrade && response.body.empty()) {
      co_await serve_websocket(
          WebSocketServices{*impl.operations, *impl.engine, impl.workers, impl.limits, impl.slow_workers,
                            impl.blocking_workers},
                               std::move(stream), parser.release(), request.scope_run_id);
      co_return;
    }
    if (response.stream) {
      co_await serve_stream(impl, stream, response, version);
      break;
    }
    bool ok = false;
    co_await write_response(stream, response, version, keep_alive, impl.limits, ok);
    if (!ok || !keep_alive) break;
  }
  boost::system::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
}

/// Whether a new connection may be served. Near the limit the connection that has
/// waited longest for a request makes room; at the limit with nobody to evict, no.
bool admit(HttpServer::Impl& impl) {
  const std::size_t open = impl.connections.load();
  const auto& l = impl.limits;
  const std::size_t reserve = std::min(l.reserved_connections, l.max_connections / 2);
  if (open < l.max_connections - reserve) return true;
  const bool evicted = evict_oldest_waiting(impl);
  // An evicted connection closes soon; until then one more may be open than the limit.
  return open < l.max_connections || (evicted && open < l.max_connections + reserve);
}

/// Answers 503 with the envelope and closes, without reading the request: the client
/// learns why instead of seeing a reset. Bounded: past 64 at once, just close.
void refuse_connection(HttpServer::Impl& impl, tcp::socket socket) {
  static std::atomic<std::int64_t> last_logged{0};
  const auto now = std::chrono::steady_clock::now().time_since_epoch() / std::chrono::seconds(1);
  if (last_logged.exchange(now) != now)
    core::log_warn("connection limit reached; answering 503",
                   {{"limit", std::to_string(impl.limits.max_connections)}});
  if (impl.refusing.load() >= 64) {
    boost::system::error_code ignored;
    socket.close(ignored);
    return;
  }
  auto executor = socket.get_executor();
  net::co_spawn(
      executor,
      [&impl, socket = std::move(socket)]() mutable -> net::awaitable<void> {
        Counted refusing(impl.refusing);
        beast::tcp_stream stream(std::move(socket));
        auto response = error_response(core::ErrorCode::unavailable,
                                       "the daemon has too many connections open (" +
                                           std::to_string(impl.limits.max_connections) + "); try again shortly",
                                       {{"limit", impl.limits.max_connections}});
        response.headers.emplace_back("Retry-After", "1");
        ServerLimits quick = impl.limits;
        quick.write_timeout = std::chrono::seconds(2);
        bool ok = false;
        co_await write_response(stream, client_response(std::move(response), new_request_id(), "connection"), 11,
                                false, quick, ok);
        boost::system::error_code ignored;
        stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
      },
      net::detached);
}

net::awaitable<void> accept_loop(HttpServer::Impl& impl) {
  for (;;) {
    auto [ec, socket] = co_await impl.acceptor.async_accept(net::make_strand(impl.ioc),
                                                            net::as_tuple(net::use_awaitable));
    if (ec == net::error::operation_aborted || !impl.acceptor.is_open()) co_return;
    if (ec) {
      // Usually fd exhaustion; back off briefly instead of spinning.
      core::log_warn("accept failed", {{"error", ec.message()}});
      net::steady_timer pause(impl.ioc, std::chrono::milliseconds(50));
      co_await pause.async_wait(net::as_tuple(net::use_awaitable));
      continue;
    }
    if (!admit(impl)) {
      refuse_connection(impl, std::move(socket));
      continue;
    }
    // Small request/response messages: without this, a reply written in several pieces
    // (a WebSocket message split into frames) waits for the client's delayed ACK (~40 ms).
    boost::system::error_code nodelay_ec;
    socket.set_option(tcp::no_delay(true), nodelay_ec);
    auto executor = socket.get_executor();
    net::co_spawn(executor, session(impl, std::move(socket)), net::detached);
  }
}

/// Stops once in-flight requests have finished or the drain timeout has passed.
void drain_then_stop(HttpServer::Impl& impl, std::chrono::steady_clock::time_point deadline) {
  if (impl.in_flight.load() == 0 || std::chrono::steady_clock::now() >= deadline) {
    impl.ioc.stop();
    return;
  }
  auto timer = std::make_shared<net::steady_timer>(impl.ioc, std::chrono::milliseconds(20));
  timer->async_wait([&impl, deadline, timer](const boost::system::error_code&) { drain_then_stop(impl, deadline); });
}

void begin_shutdown(HttpServer::Impl& impl) {
  if (impl.stopping.exchange(true)) return;
  boost::system::error_code ignored;
  impl.acceptor.close(ignored);
  drain_then_stop(impl, std::chrono::steady_clock::now() + impl.limits.drain_timeout);
}

}  // namespace

HttpServer::HttpServer(const Router& router, ServerLimits limits, ServerThreads threads)
    : impl_(std::make_unique<Impl>(router, limits, threads)) {}

HttpServer::~HttpServer() {
  impl_->ioc.stop();
  impl_->workers.join();
  impl_->slow_workers.join();
  impl_->blocking_workers.join();
}

void HttpServer::enable_websocket(const Operations& operations, engine::Engine& engine) {
  impl_->operations = &operations;
  impl_->engine = &engine;
}

void HttpServer::set_access_policy(const AccessPolicy& policy) { impl_->access = &policy; }

void HttpServer::set_browser_guard(const BrowserGuard& guard) { impl_->guard = &guard; }

void HttpServer::set_upload_spool(UploadSpool spool) { impl_->spool = std::move(spool); }

void HttpServer::set_web_base_path(std::string base) { impl_->web_base_path = std::move(base); }

core::Result<std::uint16_t> HttpServer::listen(const std::string& address, std::uint16_t port) {
  boost::system::error_code ec;
  auto ip = net::ip::make_address(address, ec);
  if (ec) return core::fail(core::ErrorCode::invalid_request, "'" + address + "' is not an IP address");
  tcp::endpoint endpoint(ip, port);
  auto& a = impl_->acceptor;
  a.open(endpoint.protocol(), ec);
  if (!ec) a.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) a.bind(endpoint, ec);
  if (!ec) a.listen(net::socket_base::max_listen_connections, ec);
  if (ec)
    return core::fail(core::ErrorCode::internal,
                      "cannot listen on " + address + ":" + std::to_string(port) + ": " + ec.message());
  return a.local_endpoint().port();
}

int HttpServer::run() {
  auto& impl = *impl_;
  impl.signals.async_wait([&impl](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    impl.stop_signal = signal;
    core::log_info("shutting down", {{"signal", signal == SIGINT ? "SIGINT" : "SIGTERM"}});
    begin_shutdown(impl);
  });
  net::co_spawn(impl.ioc, accept_loop(impl), net::detached);
  std::vector<std::thread> extra;
  for (std::size_t i = 1; i < impl.threads.io; ++i) extra.emplace_back([&impl] { impl.ioc.run(); });
  impl.ioc.run();
  for (auto& t : extra) t.join();
  impl.workers.join();
  impl.slow_workers.join();
  impl.blocking_workers.join();
  return impl.stop_signal.load();
}

void HttpServer::stop() {
  net::post(impl_->ioc, [this] { begin_shutdown(*impl_); });
}

}  // namespace agentry::api

// One HTTP connection (http_server_impl.hpp): its requests are read one after another,
// checked (header limits, transfer coding, declared length, admission) before their body
// is read, and dispatched to the worker pools; upload bodies go to a spool file instead
// of memory, and a WebSocket upgrade hands the connection over to ws_connection.cpp.

#include "api/http_server_impl.hpp"

#include "api/access_policy.hpp"
#include "api/beast_request.hpp"
#include "api/browser_guard.hpp"
#include "api/mcp/mcp_http.hpp"
#include "api/server_errors.hpp"
#include "api/quick_reads.hpp"
#include "api/request_metrics.hpp"
#include "api/slow_work.hpp"
#include "api/web_base_path.hpp"
#include "api/worker_dispatch.hpp"
#include "api/ws_connection.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include <stdlib.h>
#include <unistd.h>

namespace agentry::api {
namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;

namespace {

/// parse_target() with the web base path taken off, so routes, auth and the slow lane
/// see the same path however the request was mounted.
bool parse_mounted_target(const HttpServer::Impl& impl, const std::string& target, std::string& path,
                          std::map<std::string, std::string>& query) {
  const bool ok = parse_target(target, path, query);
  strip_web_base_path(impl.web_base_path, path);
  return ok;
}

// GCC 12 destroys lambda temporaries created inside a co_await expression twice, so
// the callables handed to on_workers() are built in these plain functions instead.

/// A response made on the connection's thread once its write committed: never throws
/// there, where it would end the I/O thread.
HttpResponse made_after_write(const std::function<HttpResponse()>& make, std::string route_class) {
  HttpResponse response;
  try {
    response = make();
  } catch (const std::exception& e) {
    response = error_response(core::ErrorCode::internal, std::string("request handler failed: ") + e.what());
  }
  response.route_class = std::move(route_class);
  return response;
}

/// Routes `request` on `pool` and completes `handler` with the response. One that waits
/// on a write (HttpResponse::after_write) is started from the worker, which is then
/// free: the writer's reply resumes the connection, which builds the response itself.
template <class Handler>
void route_then(HttpServer::Impl& impl, HttpRequest& request, Handler handler) {
  HttpResponse response = impl.router.dispatch(std::move(request));
  auto executor = net::get_associated_executor(handler);
  if (!response.after_write) {
    net::dispatch(executor, [handler = std::move(handler), response = std::move(response)]() mutable {
      std::move(handler)(std::move(response));
    });
    return;
  }
  // The connection's executor and handler leave the reply when it is called: the store's
  // writer may destroy the reply only after the server went away, and an executor
  // destroyed after its io_context touches freed memory.
  using Executor = decltype(executor);
  struct Waiting {
    std::mutex mutex;
    std::optional<Executor> executor;
    std::optional<Handler> handler;
  };
  auto waiting = std::make_shared<Waiting>();
  waiting->executor.emplace(std::move(executor));
  waiting->handler.emplace(std::move(handler));
  auto& replies = impl.replies_after_write;
  auto reply = [waiting, &replies, route_class = response.route_class](std::function<HttpResponse()> make) {
    {
      std::unique_lock lock(waiting->mutex);
      if (!waiting->handler) return;  // answered already
      auto on_connection = std::move(*waiting->executor);
      auto answer = std::move(*waiting->handler);
      waiting->executor.reset();
      waiting->handler.reset();
      lock.unlock();
      net::post(on_connection, [answer = std::move(answer), make = std::move(make), route_class]() mutable {
        std::move(answer)(made_after_write(make, route_class));
      });
    }
    replies.done();
  };
  replies.add();
  try {
    response.after_write(reply);
  } catch (const std::exception& e) {
    // Nothing was queued: the request fails here.
    const std::string message = std::string("request handler failed: ") + e.what();
    reply([message] { return error_response(core::ErrorCode::internal, message); });
  }
}

/// Engine commands block until their write commits: handlers never run on I/O threads
/// (but for quick reads: quick_reads.hpp). Workspace work (diffs, searches) and questions
/// to a run may take long: they run on a pool of their own, over /api/ and over /mcp alike.
net::awaitable<HttpResponse> dispatch_on_workers(HttpServer::Impl& impl, HttpRequest request) {
  const bool slow = is_slow_path(request.path) || mcp::is_slow_mcp_request(request.path, request.body);
  auto& pool = slow ? impl.slow_workers : impl.workers;
  auto initiation = [&impl, &pool, request = std::move(request)](auto handler) mutable {
    net::post(pool, [&impl, request = std::move(request), handler = std::move(handler)]() mutable {
      route_then(impl, request, std::move(handler));
    });
  };
  return net::async_initiate<const net::use_awaitable_t<>, void(HttpResponse)>(std::move(initiation),
                                                                               net::use_awaitable);
}

/// The part of an answer that waits on a program, on the blocking pool.
net::awaitable<HttpResponse> finish_on_blocking_pool(HttpServer::Impl& impl, HttpResponse first) {
  std::string route_class = std::move(first.route_class);
  HttpResponse done = co_await on_workers<HttpResponse>(impl.blocking_workers, std::move(first.blocking));
  done.route_class = std::move(route_class);
  co_return done;
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
  if (!upgrade && is_signed_delivery(request.method, request.path)) return std::nullopt;
  auto scope = impl.access->authenticate(request);
  if (!scope) return AccessPolicy::refusal();
  request.scope_run_id = std::move(*scope);
  return std::nullopt;
}

/// A request whose body is a file (UploadSpool): checked for admission before a byte of
/// the body is read, then the body goes to a spool file, read with a timeout per piece
/// so a large upload on a slow link is not cut off while it moves. `keep`: the
/// connection may serve another request.
net::awaitable<void> serve_spooled(HttpServer::Impl& impl, ServedStream& stream, beast::flat_buffer& buffer,
                                   http::request_parser<http::string_body>& header, std::uint64_t limit, bool& keep) {
  keep = false;
  HttpRequest request = header_to_request(header.get());
  const unsigned version = header.get().version();
  const bool keep_alive = header.get().keep_alive() && !impl.stopping;
  const auto started = std::chrono::steady_clock::now();
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
        response = std::move(*failure);  // worded below, with the rest
      } else {
        body_read = true;
        request.body_file = spool;
        response = co_await dispatch_on_workers(impl, std::move(request));
        if (response.blocking) response = co_await finish_on_blocking_pool(impl, std::move(response));
      }
    }
  }
  observe_http_request(response, started);
  response = outgoing(impl, client_response(std::move(response), request_id, what));
  // A body left unread would be taken for the next request: close instead.
  const bool reuse = keep_alive && body_read;
  bool ok = false;
  co_await write_response(stream, response, version, reuse, impl.limits, ok);
  keep = ok && reuse;
}

/// Checks a request's header before any of its body is read. A transfer coding we do
/// not decode (501) or a declared length over the limit (413) is answered, and ends the
/// connection: the body that follows is never read. Otherwise the parser gets the body
/// limit, which depends on the route (uploads are larger), and `spool_limit` is set when
/// the body goes to a file (UploadSpool).
std::optional<HttpResponse> refuse_header(HttpServer::Impl& impl, http::request_parser<http::string_body>& parser,
                                          std::optional<std::uint64_t>& spool_limit) {
  if (unsupported_transfer_coding(parser)) {
    auto response = error_response(core::ErrorCode::invalid_request,
                                   "Transfer-Encoding '" + std::string(parser.get()[http::field::transfer_encoding]) +
                                       "' is not supported; send the body plainly or with 'chunked' alone",
                                   {{"header", "Transfer-Encoding"}});
    response.status = 501;
    return outgoing(impl, client_response(std::move(response), new_request_id(), "transfer coding"));
  }
  std::string path;
  std::map<std::string, std::string> query;
  if (impl.spool.limit_for && parse_mounted_target(impl, std::string(parser.get().target()), path, query))
    spool_limit = impl.spool.limit_for(parser.get().method_string(), path);
  const std::uint64_t limit = spool_limit.value_or(impl.limits.max_body_bytes);
  if (auto length = parser.content_length(); length && *length > limit)
    return outgoing(impl, client_response(body_too_large(limit), new_request_id(), "request body"));
  parser.body_limit(limit);  // chunked bodies are counted as they arrive
  return std::nullopt;
}

/// Reads the rest of a request held in memory, after sending "100 Continue" when the
/// client waits for it.
net::awaitable<boost::system::error_code> read_body(ServedStream& stream, beast::flat_buffer& buffer,
                                                    http::request_parser<http::string_body>& parser) {
  boost::system::error_code ec;
  if (parser.get()[http::field::expect] == "100-continue") {
    http::response<http::empty_body> cont{http::status::continue_, parser.get().version()};
    auto [cont_ec, cont_n] = co_await http::async_write(stream, cont, net::as_tuple(net::use_awaitable));
    ec = cont_ec;
  }
  if (!ec && !parser.is_done()) {
    auto [body_ec, body_n] = co_await http::async_read(stream, buffer, parser, net::as_tuple(net::use_awaitable));
    ec = body_ec;
  }
  co_return ec;
}

/// The answer to a request read whole: a refusal (a bad target, admission_refusal), or
/// its route's. An admitted WebSocket upgrade gets an empty answer: the caller hands the
/// connection over. The request counts as in flight meanwhile, so shutdown waits for it.
net::awaitable<HttpResponse> answer(HttpServer::Impl& impl, HttpRequest& request, bool upgrade) {
  Counted busy(impl.in_flight);
  HttpResponse response;
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
    // A quick read never waits on a write (HttpResponse::after_write) or a program.
    if (impl.quick_reads_inline && is_quick_read(request.method, request.path))
      response = impl.router.dispatch(std::move(request));
    else
      response = co_await dispatch_on_workers(impl, std::move(request));
    if (response.blocking) response = co_await finish_on_blocking_pool(impl, std::move(response));
  }
  co_return response;
}

}  // namespace

HttpResponse outgoing(const HttpServer::Impl& impl, HttpResponse response) {
  if (!impl.error_format || response.status < 400 || response.stream) return response;
  return impl.error_format(std::move(response));
}

net::awaitable<void> serve_connection(HttpServer::Impl& impl, ServedSocket socket) {
  Counted connection(impl.connections);
  ServedStream stream(std::move(socket));
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
    std::optional<std::uint64_t> spool_limit;
    if (!ec) {
      if (auto refusal = refuse_header(impl, parser, spool_limit)) {
        bool ok = false;
        co_await write_response(stream, *refusal, parser.get().version(), false, impl.limits, ok);
        break;
      }
    }
    if (!ec && spool_limit) {
      bool keep = false;
      co_await serve_spooled(impl, stream, buffer, parser, *spool_limit, keep);
      if (!keep) break;
      continue;
    }
    if (!ec) ec = co_await read_body(stream, buffer, parser);
    if (ec) {
      if (auto response = read_failure_response(ec, impl.limits, impl.limits.max_body_bytes)) {
        bool ok = false;
        co_await write_response(stream, outgoing(impl, std::move(*response)), 11, false, impl.limits, ok);
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
    const auto started = std::chrono::steady_clock::now();
    HttpResponse response = co_await answer(impl, request, upgrade);
    if (!(upgrade && response.body.empty())) observe_http_request(response, started);
    if (!(upgrade && response.body.empty()))
      response = outgoing(impl, client_response(std::move(response), request_id, what));
    if (upgrade && response.body.empty()) {
      // Named before the co_await, not a temporary inside it: GCC 12 destroys such
      // temporaries twice, and these hold a shared_ptr (the stream memory's share).
      WebSocketServices services{*impl.operations, *impl.engine,      impl.workers,
                                 impl.limits,      impl.slow_workers, impl.blocking_workers,
                                 impl.dialect.get(), impl.unsent_memory,
                                 impl.quick_reads_inline};
      auto upgrade_request = parser.release();
      co_await serve_websocket(services, std::move(stream), std::move(upgrade_request), request.scope_run_id);
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
  stream.socket().shutdown(ServedSocket::shutdown_send, ignored);
}

}  // namespace agentry::api

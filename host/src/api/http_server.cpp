// The daemon's HTTP listener (http_server.hpp): it accepts connections on its TCP port and
// its Unix socket, keeps their number under the limit (one limit for both; evicting idle
// ones first, answering 503 past that), and on shutdown stops accepting, removes the
// socket's file and lets requests in flight finish. Each connection is served by
// http_connection.cpp, the same way whichever listener it came in on.

#include "api/http_server.hpp"

#include "api/http_server_impl.hpp"
#include "api/server_errors.hpp"
#include "api/websocket_dialect.hpp"
#include "core/log.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>

namespace agentry::api {
namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = net::ip::tcp;

// --- The connection limit ----------------------------------------------------------------

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

namespace {

/// Asio opens sockets without close-on-exec, so every program the daemon starts (agents,
/// hooks) would inherit them: a listener held by an agent that outlives a killed daemon
/// keeps the Unix socket answering (the next daemon would take it for a live one and
/// refuse to start), and an agent could accept() the daemon's clients, or read from a
/// connection it inherited. Set right after the socket is made; a program started in
/// between by another thread is the only one that can still get it.
void close_on_exec(int fd) {
  const int flags = ::fcntl(fd, F_GETFD);
  if (flags >= 0) ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
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
void refuse_connection(HttpServer::Impl& impl, ServedSocket socket) {
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
        ServedStream stream(std::move(socket));
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
        stream.socket().shutdown(ServedSocket::shutdown_send, ignored);
      },
      net::detached);
}

net::awaitable<void> accept_loop(HttpServer::Impl& impl, Listener& listener) {
  auto& acceptor = listener.acceptor;
  for (;;) {
    auto [ec, socket] = co_await acceptor.async_accept(net::make_strand(impl.ioc), net::as_tuple(net::use_awaitable));
    if (ec == net::error::operation_aborted || !acceptor.is_open()) co_return;
    if (ec) {
      // Usually fd exhaustion; back off briefly instead of spinning.
      core::log_warn("accept failed", {{"error", ec.message()}});
      net::steady_timer pause(impl.ioc, std::chrono::milliseconds(50));
      co_await pause.async_wait(net::as_tuple(net::use_awaitable));
      continue;
    }
    close_on_exec(socket.native_handle());
    if (!admit(impl)) {
      refuse_connection(impl, std::move(socket));
      continue;
    }
    // Small request/response messages: without this, a reply written in several pieces
    // (a WebSocket message split into frames) waits for the client's delayed ACK (~40 ms).
    // A Unix socket has no Nagle to turn off.
    if (listener.tcp) {
      boost::system::error_code nodelay_ec;
      socket.set_option(tcp::no_delay(true), nodelay_ec);
    }
    auto executor = socket.get_executor();
    net::co_spawn(executor, serve_connection(impl, std::move(socket)), net::detached);
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
  for (auto& listener : impl.listeners) listener.acceptor.close(ignored);
  // A client that comes now finds no socket (rather than one nobody answers on), and the
  // next daemon finds nothing stale in its way.
  if (impl.socket_file) impl.socket_file->remove();
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
  impl_->replies_after_write.wait_for_none();
}

void HttpServer::export_connection_metrics(std::string listener) {
  auto& registry = core::metrics::registry();
  auto& gauge = registry.gauge("agentry_http_open_connections",
                               "Connections open on a listener now (HTTP, event streams and WebSockets).",
                               {{"listener", std::move(listener)}});
  impl_->connection_metrics = registry.add_collector(
      [&gauge, &connections = impl_->connections] { gauge.set(static_cast<double>(connections.load())); });
}

void HttpServer::enable_websocket(const Operations& operations, engine::Engine& engine) {
  impl_->operations = &operations;
  impl_->engine = &engine;
}

void HttpServer::set_websocket_dialect(WebSocketDialect dialect) {
  impl_->dialect = std::make_shared<const WebSocketDialect>(std::move(dialect));
}

void HttpServer::set_access_policy(const AccessPolicy& policy) { impl_->access = &policy; }

void HttpServer::set_browser_guard(const BrowserGuard& guard) { impl_->guard = &guard; }

void HttpServer::set_upload_spool(UploadSpool spool) { impl_->spool = std::move(spool); }

void HttpServer::set_unsent_memory(std::shared_ptr<core::ByteBudget> unsent) { impl_->unsent_memory = std::move(unsent); }

void HttpServer::answer_quick_reads_inline(bool inline_reads) { impl_->quick_reads_inline = inline_reads; }

void HttpServer::set_web_base_path(std::string base) { impl_->web_base_path = std::move(base); }

void HttpServer::set_error_format(std::function<HttpResponse(HttpResponse)> format) {
  impl_->error_format = std::move(format);
}

core::Result<std::uint16_t> HttpServer::listen(const std::string& address, std::uint16_t port) {
  boost::system::error_code ec;
  auto ip = net::ip::make_address(address, ec);
  if (ec) return core::fail(core::ErrorCode::invalid_request, "'" + address + "' is not an IP address");
  const ServedProtocol::endpoint endpoint{tcp::endpoint(ip, port)};
  auto& a = impl_->listeners.emplace_back(impl_->ioc, true).acceptor;
  a.open(endpoint.protocol(), ec);
  if (!ec) close_on_exec(a.native_handle());
  if (!ec) a.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) a.bind(endpoint, ec);
  if (!ec) a.listen(net::socket_base::max_listen_connections, ec);
  ServedProtocol::endpoint bound;
  if (!ec) bound = a.local_endpoint(ec);
  if (ec) {
    impl_->listeners.pop_back();
    return core::fail(core::ErrorCode::internal,
                      "cannot listen on " + address + ":" + std::to_string(port) + ": " + ec.message());
  }
  // The address as bound (port 0 picked a port), read back as TCP's.
  tcp::endpoint as_tcp;
  std::memcpy(as_tcp.data(), bound.data(), std::min<std::size_t>(bound.size(), as_tcp.capacity()));
  return as_tcp.port();
}

core::Result<void> HttpServer::listen_local(const std::filesystem::path& path) {
  if (impl_->socket_file) return core::fail(core::ErrorCode::internal, "the daemon already listens on a Unix socket");
  if (auto cleared = clear_socket_path(path); !cleared) return cleared;
  const ServedProtocol::endpoint endpoint{net::local::stream_protocol::endpoint(path.string())};
  auto& a = impl_->listeners.emplace_back(impl_->ioc, false).acceptor;
  boost::system::error_code ec;
  a.open(endpoint.protocol(), ec);
  if (!ec) close_on_exec(a.native_handle());
  if (!ec) a.bind(endpoint, ec);
  if (!ec) impl_->socket_file.emplace(path);  // bound: the file is ours to remove from now on
  // Only the user: reaching the socket is reaching the user's shell, as with the port.
  // The directory it is in (0700 for the default one) keeps others out until then.
  if (!ec && ::chmod(path.c_str(), 0600) != 0) ec.assign(errno, boost::system::system_category());
  if (!ec) a.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    impl_->listeners.pop_back();
    impl_->socket_file.reset();
    return core::fail(core::ErrorCode::internal, "cannot listen on " + unix_url(path) + ": " + ec.message());
  }
  return core::ok();
}

int HttpServer::run() {
  auto& impl = *impl_;
  impl.signals.async_wait([&impl](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    impl.stop_signal = signal;
    core::log_info("shutting down", {{"signal", signal == SIGINT ? "SIGINT" : "SIGTERM"}});
    begin_shutdown(impl);
  });
  for (auto& listener : impl.listeners) net::co_spawn(impl.ioc, accept_loop(impl, listener), net::detached);
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

#pragma once
// The inside of http_server.hpp, shared by the server's three files. All three compile
// Beast and Asio, and so belong to agentry_api_server:
//   http_server.cpp      the listener: accepting, the connection limit, shutdown
//   http_connection.cpp  one connection: reading requests, admission, dispatch
//   http_responses.cpp   writing answers: a whole body, a file, an event stream
// Internal to those files.

#include "api/http_message.hpp"
#include "api/http_server.hpp"
#include "api/local_socket.hpp"
#include "api/served_stream.hpp"
#include "core/byte_budget.hpp"
#include "core/metrics.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/system/error_code.hpp>

#include <atomic>
#include <condition_variable>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace agentry::api {

/// A connection waiting for a request: the first thing to let go of when the daemon is
/// full. `stream` and `waiting` are touched on the connection's strand only.
struct WaitingConnection {
  boost::asio::any_io_executor executor;
  ServedStream* stream = nullptr;
  bool waiting = false;
  std::list<std::shared_ptr<WaitingConnection>>::iterator position;  // in Impl::waiting, under its mutex
  bool listed = false;                                                // under Impl::waiting_mutex
};

/// One listening socket: the TCP port or the Unix socket.
struct Listener {
  explicit Listener(boost::asio::io_context& ioc, bool is_tcp) : acceptor(ioc), tcp(is_tcp) {}
  ServedAcceptor acceptor;
  bool tcp;  // TCP-only socket options apply to its connections
};

/// Responses that wait on a write (HttpResponse::after_write) and are not yet handed to
/// their connection: the store's writer posts them to the server's io_context, so the
/// server waits for them before it goes away.
class RepliesAfterWrite {
 public:
  void add() {
    std::lock_guard lock(mutex_);
    ++outstanding_;
  }
  void done() {
    std::lock_guard lock(mutex_);
    if (--outstanding_ == 0) none_.notify_all();
  }
  /// Every write ends (commits, fails, or is refused by a stopping store), so this ends.
  void wait_for_none() {
    std::unique_lock lock(mutex_);
    none_.wait(lock, [this] { return outstanding_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable none_;
  std::size_t outstanding_ = 0;
};

struct HttpServer::Impl {
  Impl(const Router& r, ServerLimits l, ServerThreads t)
      : router(r),
        limits(l),
        threads(t),
        workers(t.workers),
        slow_workers(t.slow_workers),
        blocking_workers(t.blocking_workers),
        signals(ioc, SIGINT, SIGTERM) {}

  const Router& router;
  const Operations* operations = nullptr;
  engine::Engine* engine = nullptr;
  std::shared_ptr<const WebSocketDialect> dialect;  // another wire's, on a compat listener
  const AccessPolicy* access = nullptr;
  const BrowserGuard* guard = nullptr;
  std::string web_base_path;  // a reverse proxy's mount, accepted in front of every path
  UploadSpool spool;
  std::shared_ptr<core::ByteBudget> unsent_memory;  // null: connections' unsent bytes are not counted
  bool quick_reads_inline = false;  // quick_reads.hpp
  std::function<HttpResponse(HttpResponse)> error_format;  // empty: our envelope as it is
  ServerLimits limits;
  ServerThreads threads;
  boost::asio::io_context ioc;
  boost::asio::thread_pool workers;
  boost::asio::thread_pool slow_workers;  // is_slow_path() requests: long git work never holds `workers`
  boost::asio::thread_pool blocking_workers;  // answers that wait on a program (HttpResponse::blocking)
  RepliesAfterWrite replies_after_write;
  std::list<Listener> listeners;  // a list: accept loops hold references to its elements
  std::optional<SocketFile> socket_file;  // the Unix socket's file, removed when we stop
  boost::asio::signal_set signals;
  std::atomic<int> stop_signal{0};
  std::atomic<std::size_t> connections{0};
  std::atomic<std::size_t> in_flight{0};
  std::atomic<bool> stopping{false};
  std::atomic<std::size_t> refusing{0};
  std::mutex waiting_mutex;
  std::list<std::shared_ptr<WaitingConnection>> waiting;  // oldest first
  core::metrics::CollectorHandle connection_metrics;  // last: reads `connections`
};

/// Counts itself in `n` while it lives: open connections, requests in flight, refusals.
class Counted {
 public:
  explicit Counted(std::atomic<std::size_t>& n) : n_(n) { ++n_; }
  ~Counted() { --n_; }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;

 private:
  std::atomic<std::size_t>& n_;
};

// --- http_server.cpp: the connection limit ---------------------------------------------

/// The connection waits for its next request: it may be evicted to make room.
void list_waiting(HttpServer::Impl& impl, const std::shared_ptr<WaitingConnection>& slot);
/// It got one (or is closing): no longer evictable.
void unlist_waiting(HttpServer::Impl& impl, const std::shared_ptr<WaitingConnection>& slot);

// --- http_connection.cpp -------------------------------------------------------------

/// `response` as this listener words it (HttpServer::set_error_format).
HttpResponse outgoing(const HttpServer::Impl& impl, HttpResponse response);

/// Serves one accepted connection's requests until it closes, or hands it over to
/// WebSocket JSON-RPC when it asks for the upgrade.
boost::asio::awaitable<void> serve_connection(HttpServer::Impl& impl, ServedSocket socket);

// --- http_responses.cpp --------------------------------------------------------------

/// 413 with the limit, for a body (declared or read) over it.
HttpResponse body_too_large(std::uint64_t limit);

/// The response to a request that could not be read, or nothing when the peer is gone.
std::optional<HttpResponse> read_failure_response(const boost::system::error_code& ec, const ServerLimits& limits,
                                                  std::uint64_t body_limit);

/// Writes `response` (its body, or the file it names); `ok`: the whole of it went out.
boost::asio::awaitable<void> write_response(ServedStream& stream, const HttpResponse& response,
                                            unsigned version, bool keep_alive, const ServerLimits& limits, bool& ok);

/// Serves a Server-Sent Events response (HttpResponse::stream) until the client goes
/// away, the source closes, or the daemon stops. The connection is not reused afterwards.
boost::asio::awaitable<void> serve_stream(HttpServer::Impl& impl, ServedStream& stream,
                                          const HttpResponse& response, unsigned version);

}  // namespace agentry::api

#pragma once
// The daemon's HTTP listener. Boost.Beast is confined to the server's own files
// (http_server_impl.hpp names them); callers see only this interface. Every connection
// has header and body size limits and a read timeout; handlers run on a worker pool so
// a slow commit never stalls I/O. It listens on a TCP port and, optionally, on a Unix
// socket (for agents in sandboxes without a network); both are served alike: same
// routes, same auth, same limits.

#include "api/router.hpp"
#include "core/result.hpp"

namespace agentry::engine {
class Engine;
}
namespace agentry::core {
class ByteBudget;
}

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string_view>
#include <memory>
#include <string>

namespace agentry::api {

class AccessPolicy;
class BrowserGuard;
class Operations;
struct WebSocketDialect;

struct ServerLimits {
  std::size_t max_body_bytes = 1024 * 1024;  // also the largest WebSocket message
  std::size_t max_header_bytes = 16 * 1024;
  /// Time allowed to receive one whole request.
  std::chrono::milliseconds read_timeout{30000};
  /// How long a kept-alive connection may wait for its next request.
  std::chrono::milliseconds idle_timeout{5000};
  std::chrono::milliseconds write_timeout{30000};
  /// At this many connections a new one first evicts the oldest connection that waits
  /// for a request; with none to evict it is answered 503.
  std::size_t max_connections = 512;
  /// Evicting starts this many connections before the limit, so that a new client
  /// always finds a place while idle ones hold the rest.
  std::size_t reserved_connections = 16;
  /// On shutdown, how long requests already being handled may take to finish.
  std::chrono::milliseconds drain_timeout{3000};
  /// How often an idle event stream sends a comment line, so proxies and clients can
  /// tell a quiet stream from a dead one.
  std::chrono::milliseconds sse_heartbeat{15000};
};

/// Requests whose body is a file (attachment uploads): read into a new file in `dir`
/// (HttpRequest::body_file) instead of memory, up to the limit `limit_for` gives for the
/// method and decoded path; nullopt means an ordinary request.
struct UploadSpool {
  std::filesystem::path dir;
  std::function<std::optional<std::uint64_t>(std::string_view method, std::string_view path)> limit_for;
};

struct ServerThreads {
  std::size_t io = 2;
  std::size_t workers = 4;
  /// Requests that may take long (workspace diffs, searches, raw reads: is_slow_path())
  /// run here, never on `workers`.
  std::size_t slow_workers = 4;
  /// The waiting part of answers that wait on a program (a taskTransition hook, at most
  /// 120 s each: OperationResult::blocking). Threads here mostly sleep in waitpid, so
  /// there are more of them; past that, such answers queue and nothing else does.
  std::size_t blocking_workers = 16;
};

class HttpServer {
 public:
  explicit HttpServer(const Router& router, ServerLimits limits = {}, ServerThreads threads = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// Accepts WebSocket JSON-RPC upgrades on "/" (calls `operations`; subscriptions
  /// read from `engine`). Both must outlive the server. Call before run().
  void enable_websocket(const Operations& operations, engine::Engine& engine);
  /// Answers WebSocket clients in another wire's dialect (ws_connection.hpp); our CLI keeps
  /// ours. Call after enable_websocket(), before run().
  void set_websocket_dialect(WebSocketDialect dialect);
  /// Requires a bearer token on protected paths and the WebSocket handshake.
  void set_access_policy(const AccessPolicy& policy);
  /// Spools the bodies of the requests `spool` names to files. Call before run().
  void set_upload_spool(UploadSpool spool);
  /// Counts what WebSocket connections have ready to send and not yet written in `unsent`
  /// (a share of the daemon's stream memory, api/unsent_memory.hpp); their subscriptions
  /// take lean batches while it is spent. Call before run().
  void set_unsent_memory(std::shared_ptr<core::ByteBudget> unsent);
  /// Answers a run's detail on the I/O thread that read the request (quick_reads.hpp):
  /// only for a store whose reads never wait. Call before run().
  void answer_quick_reads_inline(bool inline_reads);
  /// Refuses requests a web page may have sent (browser_guard.hpp). Must outlive the server.
  void set_browser_guard(const BrowserGuard& guard);
  /// Accepts every path also under `base` (normalized: web_base_path.hpp). Call before run().
  void set_web_base_path(std::string base);
  /// Rewrites every error answer (status 400 and up, in our envelope) before it is sent,
  /// the server's own refusals included: a listener that speaks another wire
  /// (api/compat/) words its errors that wire's way. Call before run().
  void set_error_format(std::function<HttpResponse(HttpResponse)> format);

  /// Reports this server's open connections on /metrics as
  /// agentry_http_open_connections{listener="<name>"} while the server lives.
  void export_connection_metrics(std::string listener);

  /// Binds and listens; port 0 picks an ephemeral port. Returns the bound port.
  core::Result<std::uint16_t> listen(const std::string& address, std::uint16_t port);
  /// Also listens on a Unix socket at `path` (absolute; its directory must exist), made
  /// 0600. A stale socket file there is replaced; a live one, or anything else, is an
  /// error (api/local_socket.hpp). The file is removed when the server stops (or, if
  /// it never runs, is destroyed). At most one. Call before run().
  core::Result<void> listen_local(const std::filesystem::path& path);

  /// Serves until SIGINT/SIGTERM (returns that signal number) or stop() (returns 0).
  /// On the way out it stops accepting and lets in-flight requests finish.
  int run();
  /// Thread-safe.
  void stop();

  struct Impl;  // defined in http_server_impl.hpp, where Beast lives

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentry::api

// The connection to one codex app-server, on the instance's executor: our own child over
// stdio (JSON lines) or a server someone else runs, over WebSocket on TCP (ws) or on a Unix
// socket (uds). One JSON-RPC message per line or per text message either way, so the
// session above sees messages, not framing. Every handler runs on the instance's executor (its strand).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <boost/asio/any_io_executor.hpp>

#include "config.hpp"

namespace agentry::codex {

struct LinkHandlers {
  std::function<void()> ready;                  // once: messages reach the app-server from now on
  std::function<void(std::string)> message;     // one whole JSON-RPC message
  std::function<void(std::string)> log;         // a diagnostics line (the child's stderr)
  // Once: nothing more comes, and why ("codex app-server exited with code 1: <last stderr
  // line>", "cannot connect to codex app-server at ws://...: ..."). After close() too.
  std::function<void(std::string reason)> closed;
};

class Link {
 public:
  virtual ~Link() = default;
  // Queues one message (no trailing newline); dropped once the link is ending.
  virtual void send(std::string message) = 0;
  // Ends the link in order, after what is queued; closed() follows. stdio: stdin EOF, then
  // SIGTERM to the group after the grace, SIGKILL after another; sockets: a close frame.
  // Idempotent.
  virtual void close() = 0;
  // No handler runs any more and nothing is waited for: a child is killed now.
  virtual void abandon() noexcept = 0;
};

// Spawns `codex app-server` in its own process group. Throws std::runtime_error.
std::shared_ptr<Link> open_stdio(const boost::asio::any_io_executor& io, const StdioLaunch& launch, const std::string& cwd,
                                 int shutdown_grace_ms, LinkHandlers handlers);

// Starts connecting to ws://host:port or a Unix socket; ready() or closed() says how it went
// within `timeout_ms`.
std::shared_ptr<Link> open_socket(const boost::asio::any_io_executor& io, Transport transport, const SocketTarget& target,
                                  int timeout_ms, LinkHandlers handlers);

}  // namespace agentry::codex

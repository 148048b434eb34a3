// One JSON-RPC connection to a codex app-server: our own child over stdio (JSON lines),
// or a server someone else runs, over WebSocket on TCP (ws) or on a Unix socket (uds).
// Used from one thread (the session's); every call may block briefly on I/O.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"

namespace agentry::codex {

struct Incoming {
  std::vector<std::string> messages;  // whole JSON-RPC messages, in order
  bool closed = false;                // no more will come
};

class Connection {
 public:
  virtual ~Connection() = default;

  // The descriptor to poll for POLLIN; read_some() after it is readable.
  virtual int fd() const noexcept = 0;
  virtual Incoming read_some() = 0;

  // A second descriptor with diagnostics (the child's stderr), or -1.
  virtual int log_fd() const noexcept { return -1; }
  // Reads what log_fd() has; returns whole lines.
  virtual std::vector<std::string> read_log() { return {}; }

  // Sends one message. Throws std::runtime_error when the peer is gone.
  virtual void send(std::string_view message) = 0;

  // Ends the connection in order (stdio: stdin EOF, wait, SIGTERM, SIGKILL; sockets: a
  // close frame). Never throws; idempotent.
  virtual void close() noexcept = 0;

  // After the connection closed: why, for the FINISHED message ("codex app-server exited
  // with code 1: <last stderr line>").
  virtual std::string end_reason() = 0;
};

// Spawns `codex app-server` (stdio JSON lines). Throws std::runtime_error.
std::unique_ptr<Connection> open_stdio(const StdioLaunch& launch, const std::string& cwd, int shutdown_grace_ms);

// Connects to ws://host:port or a Unix socket and performs the WebSocket handshake.
// Throws std::runtime_error.
std::unique_ptr<Connection> open_socket(Transport transport, const SocketTarget& target, int timeout_ms);

}  // namespace agentry::codex

#pragma once
// Daemon URLs: the daemon's --listen value, ws://<host>:<port>/ (the WebSocket URL
// clients connect to; the HTTP API is the same host and port under http://), and the
// CLI's --connect value, which is such a URL or the daemon's Unix socket,
// unix:///abs/path.sock (serve --socket).

#include "core/result.hpp"

#include <cstdint>
#include <string>

namespace agentry::cli {

struct ListenUrl {
  std::string host;  // an IP literal or a name; "localhost" is taken as 127.0.0.1
  std::uint16_t port = 0;
  /// unix:///abs/path.sock (--connect only): the socket's absolute path; host and port
  /// are unused then.
  std::string socket_path;

  bool is_unix() const { return !socket_path.empty(); }
  std::string ws_url(std::uint16_t bound_port) const;
  std::string http_url(std::uint16_t bound_port) const;
};

/// --listen: port 0 picks a free port.
core::Result<ListenUrl> parse_listen_url(const std::string& text);
/// --connect / AGENTRY_CONNECT: like --listen, but the port must be given (1-65535); or
/// unix:// and an absolute path no longer than a Unix socket's may be.
core::Result<ListenUrl> parse_connect_url(const std::string& text);

}  // namespace agentry::cli

#pragma once
// WebSocket URLs: the daemon's --listen value and the CLI's --connect value, both
// ws://<host>:<port>/ (the WebSocket URL clients connect to; the HTTP API is the same
// host and port under http://).

#include "core/result.hpp"

#include <cstdint>
#include <string>

namespace agentry::cli {

struct ListenUrl {
  std::string host;  // an IP literal or a name; "localhost" is taken as 127.0.0.1
  std::uint16_t port = 0;

  std::string ws_url(std::uint16_t bound_port) const;
  std::string http_url(std::uint16_t bound_port) const;
};

/// --listen: port 0 picks a free port.
core::Result<ListenUrl> parse_listen_url(const std::string& text);
/// --connect / AGENTRY_CONNECT: like --listen, but the port must be given (1-65535).
core::Result<ListenUrl> parse_connect_url(const std::string& text);

}  // namespace agentry::cli

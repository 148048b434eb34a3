#pragma once
// The daemon's --listen value: ws://<host>:<port>/ (the WebSocket URL clients connect
// to; the HTTP API is the same host and port under http://).

#include "core/result.hpp"

#include <cstdint>
#include <string>

namespace agentry::cli {

struct ListenUrl {
  std::string host;  // an IP literal; "localhost" is taken as 127.0.0.1
  std::uint16_t port = 0;

  std::string ws_url(std::uint16_t bound_port) const;
  std::string http_url(std::uint16_t bound_port) const;
};

core::Result<ListenUrl> parse_listen_url(const std::string& text);

}  // namespace agentry::cli

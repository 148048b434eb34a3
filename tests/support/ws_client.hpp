#pragma once
// A minimal blocking WebSocket client for tests (RFC 6455 over a plain socket, no
// Beast): the handshake, masked text frames out, unfragmented or fragmented text
// frames in, close and ping handling. Plus JSON-RPC helpers for the daemon's API.

#include "support/socket_io.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentry::test {

/// A client-to-server WebSocket frame (FIN set, masked with a random key).
std::string ws_client_frame(std::uint8_t opcode, std::string_view payload);

class WsClient {
 public:
  /// Connects and upgrades; throws with the HTTP status line and body when refused.
  /// `host` may be a Unix socket's absolute path (socket_io.hpp: connect_stream).
  WsClient(const std::string& host, std::uint16_t port, std::vector<std::pair<std::string, std::string>> headers = {},
           std::chrono::milliseconds timeout = std::chrono::seconds(10));

  /// The HTTP response to a refused handshake: {status, body}. Never throws on refusal.
  static std::pair<int, std::string> try_handshake(const std::string& host, std::uint16_t port,
                                                   std::vector<std::pair<std::string, std::string>> headers);

  void send_text(const std::string& text);
  /// The next text message, or nullopt on timeout. Throws when the server closed.
  std::optional<std::string> receive(std::chrono::milliseconds timeout);
  /// Close code and reason once the server closed the connection (0 while open).
  int close_code() const { return close_code_; }
  const std::string& close_reason() const { return close_reason_; }

  /// Sends a JSON-RPC request and returns its response object, keeping notifications
  /// that arrive meanwhile for next_notification().
  boost::json::object call(const std::string& method, const boost::json::value& params,
                           std::chrono::milliseconds timeout = std::chrono::seconds(30));
  std::optional<boost::json::object> next_notification(std::chrono::milliseconds timeout);

 private:
  std::optional<std::string> read_message(Clock::time_point deadline);
  bool fill(std::size_t need, Clock::time_point deadline);
  void send_frame(std::uint8_t opcode, const std::string& payload);

  UniqueFd fd_;
  std::string buffer_;
  std::deque<boost::json::object> notifications_;
  std::int64_t next_id_ = 1;
  int close_code_ = 0;
  std::string close_reason_;
};

}  // namespace agentry::test

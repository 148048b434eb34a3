// A minimal RFC 6455 WebSocket client over an already connected stream socket (TCP or
// AF_UNIX): the HTTP/1.1 Upgrade handshake with the Sec-WebSocket-Accept check, masked
// text frames out, fragmented messages, ping -> pong and close in. No TLS, no extensions.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentry/plugin_common/child_process.hpp"

namespace agentry::codex::ws {

enum Opcode : uint8_t { continuation = 0x0, text = 0x1, binary = 0x2, close = 0x8, ping = 0x9, pong = 0xA };

struct Frame {
  bool fin = true;
  uint8_t opcode = text;
  std::string payload;  // unmasked
};

// One frame as a client sends it: FIN set, masked with `mask`.
std::string encode_frame(uint8_t opcode, std::string_view payload, std::array<uint8_t, 4> mask);

// Takes the first whole frame off the front of `buffer`, or nullopt when more bytes are
// needed. Throws std::runtime_error on a frame no server may send (reserved bits, a
// control frame over 125 bytes or fragmented) or one over `max_payload`.
std::optional<Frame> take_frame(std::string& buffer, std::size_t max_payload);

// Sec-WebSocket-Accept for a Sec-WebSocket-Key (RFC 6455 §4.2.2).
std::string accept_key(std::string_view key);

struct Handshake {
  std::string host;          // the Host header
  std::string path = "/";    // the request target
  std::string bearer_token;  // "Authorization: Bearer" when non-empty
};

struct ReadResult {
  std::vector<std::string> messages;  // whole text (or binary) messages
  bool closed = false;
  std::string close_reason;  // "closed by the server (1000)", "connection reset", ...
};

class Client {
 public:
  // Takes the connected socket and performs the handshake within `timeout_ms`.
  // Throws std::runtime_error saying what the server answered.
  Client(plugin_common::Fd socket, const Handshake& handshake, int timeout_ms);

  int fd() const noexcept { return socket_.get(); }

  // After poll() reported the socket readable: one read, then every whole message in the
  // buffer. Pings are answered here.
  ReadResult read_some();

  // One text message as one frame. Throws std::runtime_error when the peer is gone.
  void send_text(std::string_view message);

  // A close frame (once), then shutdown of our side. Never throws.
  void close() noexcept;

 private:
  void send_frame(uint8_t opcode, std::string_view payload);
  void write_all(std::string_view bytes);

  plugin_common::Fd socket_;
  std::string buffer_;   // bytes read, not yet a whole frame
  std::string message_;  // a fragmented message being collected
  bool in_message_ = false;
  bool close_sent_ = false;
};

}  // namespace agentry::codex::ws

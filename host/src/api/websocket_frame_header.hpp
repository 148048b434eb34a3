#pragma once
// The header of a WebSocket message a server writes whole (RFC 6455 §5.2): one final,
// unmasked text frame. The connection frames its own messages (ws_connection.cpp), so
// that a hundred notifications ready at once become a hundred headers gathered into one
// write, not a hundred asynchronous writes through the WebSocket layer, each completing
// through the executor.

#include <array>
#include <cstddef>
#include <cstdint>

namespace agentry::api {

struct WebSocketFrameHeader {
  std::array<unsigned char, 10> bytes{};
  std::size_t size = 0;
};

inline WebSocketFrameHeader text_frame_header(std::uint64_t payload_bytes) {
  WebSocketFrameHeader h;
  h.bytes[0] = 0x81;  // FIN, opcode 1 (text)
  if (payload_bytes < 126) {
    h.bytes[1] = static_cast<unsigned char>(payload_bytes);
    h.size = 2;
  } else if (payload_bytes <= 0xFFFF) {
    h.bytes[1] = 126;
    h.bytes[2] = static_cast<unsigned char>(payload_bytes >> 8);
    h.bytes[3] = static_cast<unsigned char>(payload_bytes);
    h.size = 4;
  } else {
    h.bytes[1] = 127;
    for (int i = 0; i < 8; ++i) h.bytes[2 + i] = static_cast<unsigned char>(payload_bytes >> (8 * (7 - i)));
    h.size = 10;
  }
  return h;
}

}  // namespace agentry::api

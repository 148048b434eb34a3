// SHA-1 and base64, only for the WebSocket handshake (Sec-WebSocket-Accept), where
// RFC 6455 fixes the algorithm; not for anything that needs a secure hash.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace agentry::codex {

std::array<uint8_t, 20> sha1(std::string_view data);
std::string base64(std::string_view bytes);

}  // namespace agentry::codex

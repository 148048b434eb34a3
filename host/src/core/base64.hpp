#pragma once
// Standard base64 (RFC 4648, with padding): the byte streams of the WebSocket API carry
// their chunks this way.

#include <optional>
#include <string>
#include <string_view>

namespace agentry::core {

std::string base64_encode(std::string_view bytes);
/// nullopt unless `text` is canonical padded base64 (no whitespace).
std::optional<std::string> base64_decode(std::string_view text);
/// The decoded size of well-formed base64 of this length (an upper bound otherwise).
inline std::size_t base64_decoded_size(std::size_t encoded) { return encoded / 4 * 3; }

}  // namespace agentry::core

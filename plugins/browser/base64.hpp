// Base64 (RFC 4648, standard alphabet) decoding: the DevTools protocol sends binary data
// such as screenshots as base64 strings.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace agentry::browser {

// The decoded bytes, or nullopt when `text` is not valid base64 (whitespace is skipped).
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace agentry::browser

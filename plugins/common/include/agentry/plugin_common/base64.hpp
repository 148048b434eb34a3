// Base64 (RFC 4648, standard alphabet) decoding for the backends: the DevTools protocol
// sends binary data such as screenshots as base64 strings. (The host has its own, in
// core/: plugins include nothing from host/.)
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace agentry::plugin_common {

// The decoded bytes, or nullopt when `text` is not valid base64 (whitespace is skipped).
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace agentry::plugin_common

#pragma once
// Wall-clock timestamps as the API shows them: ISO 8601 UTC with milliseconds.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentry::core {

std::int64_t now_ms();
std::string format_iso8601(std::int64_t unix_ms);
std::string now_iso8601();
/// The instant of a timestamp format_iso8601() wrote; nullopt for anything else.
std::optional<std::int64_t> parse_iso8601(std::string_view text);

}  // namespace agentry::core

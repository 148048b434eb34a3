#pragma once
// Wall-clock timestamps as the API shows them: ISO 8601 UTC with milliseconds.

#include <cstdint>
#include <string>

namespace agentry::core {

std::int64_t now_ms();
std::string format_iso8601(std::int64_t unix_ms);
std::string now_iso8601();

}  // namespace agentry::core

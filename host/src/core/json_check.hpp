#pragma once
// Checking JSON text without building it: for text that is stored and sent as it came
// (a backend's event payload) and only has to be well formed.

#include <string_view>

namespace agentry::core {

/// True when `text` is one JSON object and nothing but whitespace around it, by the
/// rules boost::json::parse applies with its default options (valid UTF-8, at most 32
/// levels deep). No value is built and nothing is allocated.
bool is_json_object(std::string_view text);

}  // namespace agentry::core

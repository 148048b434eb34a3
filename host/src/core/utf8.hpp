#pragma once
// UTF-8 checks for text that arrives from outside JSON parsers: definition files,
// environment variables, percent-decoded URLs. Boost.JSON writes string bytes as they
// are, so invalid UTF-8 stored in a row would later fail to parse and break reads.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace agentry::core {

/// The offset of the first byte that does not start a well-formed UTF-8 sequence
/// (overlong forms, surrogates and code points above U+10FFFF included), or nullopt.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

inline bool is_valid_utf8(std::string_view text) { return !first_invalid_utf8(text); }

/// `text` with each ill-formed sequence replaced by U+FFFD.
std::string sanitize_utf8(std::string_view text);

}  // namespace agentry::core

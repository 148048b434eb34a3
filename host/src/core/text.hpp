#pragma once
// Small text helpers shared by what agentry writes for people and agents.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::core {

/// `size` bytes as lower-case hexadecimal, two digits a byte (digests, MACs).
std::string lower_hex(const unsigned char* bytes, std::size_t size);

/// `text` with A-Z as a-z (header values, host names, schemes: ASCII by definition).
std::string ascii_lower(std::string_view text);

/// `text` without the spaces and tabs around it (HTTP's optional whitespace).
std::string_view trim_blanks(std::string_view text);

/// `items` joined with `separator` between them.
std::string join_with(const std::vector<std::string>& items, char separator);
/// The pieces of `text` between `separator`s; none for an empty text.
std::vector<std::string> split_on(std::string_view text, char separator);

/// `text` with `prefix` before each of its lines; trailing spaces of the result dropped.
std::string indent_lines(const std::string& text, const std::string& prefix);

}  // namespace agentry::core

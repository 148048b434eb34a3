#pragma once
// Small text helpers shared by what agentry writes for people and agents.

#include <cstddef>
#include <string>

namespace agentry::core {

/// `size` bytes as lower-case hexadecimal, two digits a byte (digests, MACs).
std::string lower_hex(const unsigned char* bytes, std::size_t size);

/// `text` with `prefix` before each of its lines; trailing spaces of the result dropped.
std::string indent_lines(const std::string& text, const std::string& prefix);

}  // namespace agentry::core

#pragma once
// Small text helpers shared by what agentry writes for people and agents.

#include <string>

namespace agentry::core {

/// `text` with `prefix` before each of its lines; trailing spaces of the result dropped.
std::string indent_lines(const std::string& text, const std::string& prefix);

}  // namespace agentry::core

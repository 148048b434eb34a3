#pragma once
// Splits a definition .md file into its YAML front matter and its markdown body.
// The front matter sits between a first line "---" and a closing "---" or "..." line.

#include "core/result.hpp"

#include <string>
#include <string_view>

namespace agentry::definitions {

struct FrontMatter {
  std::string yaml;
  std::string body;         // without leading blank lines and trailing whitespace
  int yaml_first_line = 2;  // 1-based line of the file where `yaml` starts, for messages
};

/// VALIDATION_FAILED when the file does not start with "---" or the block is not closed.
core::Result<FrontMatter> split_front_matter(std::string_view text);

}  // namespace agentry::definitions

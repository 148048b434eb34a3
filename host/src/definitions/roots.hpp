#pragma once
// Where definitions come from: the user's config directory and, optionally, a
// project's `.agentry/` directory, which wins over the config directory for the same name.

#include "definitions/env.hpp"

#include <filesystem>
#include <optional>
#include <vector>

namespace agentry::definitions {

struct Roots {
  std::filesystem::path config_dir;
  /// The directory that contains `.agentry/` (usually the repository root), if any.
  std::optional<std::filesystem::path> project_dir;
  /// Environment for ${VAR} interpolation in files; empty = the process environment.
  EnvLookup getenv;
};

/// The directories searched by name, highest precedence first:
/// <project_dir>/.agentry, then config_dir.
std::vector<std::filesystem::path> search_roots(const Roots& roots);

}  // namespace agentry::definitions

#pragma once
// Where definitions come from: the user's config directory and, optionally, a
// project's `.agentry/` directory. A trusted project's definitions win over the config
// directory's of the same name; an untrusted project's never do
// (definitions/project_trust.hpp).

#include "definitions/env.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace agentry::definitions {

struct Roots {
  std::filesystem::path config_dir;
  /// The directory that contains `.agentry/` (usually the repository root), if any.
  std::optional<std::filesystem::path> project_dir;
  /// Environment for ${VAR} interpolation in files; empty = the process environment.
  EnvLookup getenv;
  /// Whether the user trusts the project's `.agentry/` as it is now (`agentry trust`).
  /// Untrusted, its files may not choose a program, read the environment beyond
  /// `project_env_allow`, or replace a definition of the config directory.
  bool project_trusted = false;
  /// The variables an untrusted project's files may read (AGENTRY_PROJECT_ENV_ALLOW).
  std::vector<std::string> project_env_allow{};
};

/// The directories searched by name, highest precedence first: a trusted project's
/// <project_dir>/.agentry before config_dir, an untrusted one's after it.
std::vector<std::filesystem::path> search_roots(const Roots& roots);

}  // namespace agentry::definitions

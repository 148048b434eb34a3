#pragma once
// A launcher: a command prefix (sandbox, container, nice...) placed before the
// agent's own command, plus environment. File: launchers/<name>.yaml (or .yml).
// `command: prog` + `args: [...]` and `command: [prog, ...]` give the same prefix.

#include "core/run.hpp"
#include "definitions/problem.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace agentry::definitions {

struct LauncherDefinition {
  std::string name;
  std::filesystem::path source_path;
  std::string description;
  std::vector<std::string> command;  // the program, then its arguments; never empty
  std::map<std::string, std::string> env;
  std::vector<Problem> warnings;
};

/// The built-in launcher that wraps nothing: `launcher: direct` starts the agent as it
/// is (agent-runner's default launcher, by name). A launchers/direct.yaml is never used.
inline constexpr const char* direct_launcher = "direct";

/// The launcher as a run freezes it.
core::FrozenLauncher to_frozen_launcher(const LauncherDefinition& launcher);

}  // namespace agentry::definitions

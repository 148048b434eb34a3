#pragma once
// What a CLI command reads from its surroundings: environment variables and the working
// directory, captured once so that commands (and their tests) see a fixed snapshot.

#include <filesystem>
#include <map>
#include <string>

namespace agentry::cli {

struct Environment {
  std::map<std::string, std::string> vars;
  std::filesystem::path cwd;

  /// The process's environment and working directory.
  static Environment current();
  /// The variable's value, "" when unset.
  std::string get(const std::string& name) const;
  /// The value when set and not empty.
  bool has(const std::string& name) const { return !get(name).empty(); }
};

// Variables the CLI reads (see docs/cli.md).
inline constexpr const char* env_connect = "AGENTRY_CONNECT";
inline constexpr const char* env_run_id = "AGENTRY_RUN_ID";
inline constexpr const char* env_parent_run_id = "AGENTRY_PARENT_RUN_ID";
inline constexpr const char* env_run_group_id = "AGENTRY_RUN_GROUP_ID";
inline constexpr const char* env_call_depth = "AGENTRY_CALL_DEPTH";

}  // namespace agentry::cli

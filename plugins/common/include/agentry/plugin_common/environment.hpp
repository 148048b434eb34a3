// The child's environment, and finding its program: plain POSIX, no Asio.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace agentry::plugin_common {

// "KEY=VALUE" entries with later settings replacing earlier ones, in first-set order.
class EnvironmentBuilder {
 public:
  // Starts from this process's environment (environ).
  static EnvironmentBuilder inherited();

  void set(std::string_view key, std::string_view value);
  void unset(std::string_view key);
  // "KEY=VALUE"; an entry without '=' is ignored.
  void set_entry(std::string_view entry);

  std::vector<std::string> take();

 private:
  std::vector<std::string> entries_;  // "" marks an unset slot
  std::unordered_map<std::string, std::size_t> index_;
};

// The value of `key` in "KEY=VALUE" entries.
std::optional<std::string_view> find_variable(const std::vector<std::string>& env, std::string_view key);

// A valid variable name for the config: non-empty, no '=' and no NUL.
bool valid_variable_name(std::string_view key) noexcept;

struct ResolvedProgram {
  std::string path;   // absolute or relative to the workspace; empty on error
  std::string error;  // "command 'foo' not found in PATH", ...
};

// Finds `program` the way execvp would: a name with a '/' is taken as it is (relative to
// `cwd`); a bare name is searched in the PATH of `env` (the child's environment).
ResolvedProgram resolve_program(const std::string& program, const std::vector<std::string>& env,
                                const std::string& cwd);

// "" when `path` is an existing directory, else what is wrong with it.
std::string check_workspace(const std::string& path);

}  // namespace agentry::plugin_common

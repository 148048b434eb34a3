#pragma once
// Where definitions read environment variables from. Injectable so tests (and a daemon
// that wants a fixed environment) do not depend on the process environment.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::definitions {

/// Returns the variable's value, or nullopt when it is not set (set-but-empty is "").
using EnvLookup = std::function<std::optional<std::string>(std::string_view)>;

/// Which variables a file may read through ${VAR}. A file of an untrusted project
/// (definitions/project_trust.hpp) may read only the names the user allow-listed: the
/// daemon's environment holds the user's secrets, and the file someone else's wishes.
struct EnvAllow {
  /// nullopt: every variable; otherwise only these names.
  std::optional<std::vector<std::string>> only;
  /// Said when a name is refused: why, and what the user can do.
  std::string refusal;

  bool allows(std::string_view name) const;
};

/// Whether `name` can name an environment variable: letters, digits and '_', not
/// starting with a digit.
bool is_env_name(std::string_view name);

/// Looks variables up in this process's environment.
EnvLookup process_env();

/// `env` when it is callable, otherwise the process environment.
EnvLookup env_or_process(const EnvLookup& env);

}  // namespace agentry::definitions

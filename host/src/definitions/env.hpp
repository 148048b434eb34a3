#pragma once
// Where definitions read environment variables from. Injectable so tests (and a daemon
// that wants a fixed environment) do not depend on the process environment.

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace agentry::definitions {

/// Returns the variable's value, or nullopt when it is not set (set-but-empty is "").
using EnvLookup = std::function<std::optional<std::string>(std::string_view)>;

/// Looks variables up in this process's environment.
EnvLookup process_env();

/// `env` when it is callable, otherwise the process environment.
EnvLookup env_or_process(const EnvLookup& env);

}  // namespace agentry::definitions

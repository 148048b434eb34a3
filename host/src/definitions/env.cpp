#include "definitions/env.hpp"

#include <algorithm>
#include <cstdlib>

namespace agentry::definitions {

EnvLookup process_env() {
  return [](std::string_view name) -> std::optional<std::string> {
    // getenv needs a terminated string; string_view does not promise one.
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

bool is_env_name(std::string_view name) {
  if (name.empty() || (name.front() >= '0' && name.front() <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool EnvAllow::allows(std::string_view name) const {
  return !only || std::find(only->begin(), only->end(), name) != only->end();
}

EnvLookup env_or_process(const EnvLookup& env) { return env ? env : process_env(); }

}  // namespace agentry::definitions

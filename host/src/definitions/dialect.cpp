#include "definitions/dialect.hpp"

namespace agentry::definitions {

bool in_agent_runner_dialect(const YamlNode& fields, std::initializer_list<std::string_view> agentry_only,
                             const Roots& roots) {
  if (auto chosen = env_or_process(roots.getenv)("AGENTRY_DEFINITIONS_DIALECT"); chosen && *chosen == "agent-runner")
    return true;
  if (!fields.is_map() || fields.find("name") == nullptr) return false;
  for (auto field : agentry_only)
    if (fields.find(field) != nullptr) return false;
  return true;
}

}  // namespace agentry::definitions

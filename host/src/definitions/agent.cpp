#include "definitions/agent.hpp"

namespace agentry::definitions {

const std::vector<std::string>& default_locked_overrides() {
  static const std::vector<std::string> fields{"backendConfig", "launcher", "environment", "backend",
                                                 "unrestricted"};
  return fields;
}

boost::json::object backend_config_for(const AgentDefinition& agent, std::string_view backend) {
  if (const auto* config = agent.backend_config.if_contains(backend); config && config->is_object()) {
    return config->get_object();
  }
  return {};
}

std::vector<std::string> extra_args_for(const AgentDefinition& agent, std::string_view backend) {
  const auto it = agent.backend_args.find(std::string(backend));
  if (it == agent.backend_args.end()) return {};
  return it->second.extra_args;
}

}  // namespace agentry::definitions

#include "engine/ad_hoc_agent.hpp"

#include "definitions/loader.hpp"

namespace agentry::engine {
namespace defs = definitions;

namespace {

defs::AgentDefinition synthesize(const RunOverrides& overrides) {
  defs::AgentDefinition agent;
  agent.name = std::string(ad_hoc_agent_name);
  agent.backend = *overrides.backend;
  // Model, effort, time limit and restriction: the overrides, applied by
  // resolve_run_inputs as for an agent from a file; absent ones keep these defaults.
  agent.timeout_sec = defs::default_agent_timeout_sec;
  agent.unrestricted = true;
  // Nothing to lock against, and no author to consent to the overrides that are locked
  // by default: the request chose the backend and its restriction itself, and may
  // change them; it may not choose a program another way (backendConfig, launcher,
  // environment), as with an agent that does not unlock them.
  agent.unlocked_fields = {"backend", "unrestricted"};
  return agent;
}

}  // namespace

core::Result<defs::AgentDefinition> requested_agent(const InitRequest& request, const defs::Roots& roots,
                                                    const std::optional<std::filesystem::path>& path_base) {
  if (!request.agent.empty()) return defs::load_agent(roots, request.agent, path_base);
  if (!request.overrides.backend)
    return core::fail(core::ErrorCode::validation,
                      "no agent: name one, or give overrides.backend to run an ad-hoc agent on that backend",
                      {{"field", "agent"}});
  return synthesize(request.overrides);
}

bool is_ad_hoc(const core::FrozenInputs& frozen) {
  return frozen.agent_name == ad_hoc_agent_name && frozen.agent_source_path.empty();
}

void keep_ad_hoc_agent(const core::FrozenInputs& frozen, RunOverrides& overrides) {
  if (!overrides.backend) overrides.backend = frozen.backend;
  if (!overrides.model && !frozen.model.empty()) overrides.model = frozen.model;
  if (!overrides.effort && !frozen.effort.empty()) overrides.effort = frozen.effort;
}

}  // namespace agentry::engine

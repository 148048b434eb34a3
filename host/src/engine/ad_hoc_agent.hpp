#pragma once
// agent-runner's ad-hoc agent: a start or init request that names no agent but a
// backend (overrides.backend) runs an agent made up on the spot from the request,
// named `ad-hoc`, with no role instructions, no locks and the schema's defaults
// (one hour per session, unrestricted). Its backend, model, effort, time limit and
// restriction are the request's overrides, applied as for any agent.

#include "core/result.hpp"
#include "core/run.hpp"
#include "definitions/agent.hpp"
#include "definitions/roots.hpp"
#include "engine/requests.hpp"

#include <filesystem>
#include <optional>
#include <string_view>

namespace agentry::engine {

/// The name of every synthesized agent; an agent file may not take it
/// (definitions/agent_parser.cpp).
inline constexpr std::string_view ad_hoc_agent_name = definitions::reserved_agent_name;

/// The agent `request` names (loaded from the definitions), else the ad-hoc one when it
/// gives overrides.backend; VALIDATION_FAILED naming `agent` when it gives neither.
core::Result<definitions::AgentDefinition> requested_agent(const InitRequest& request, const definitions::Roots& roots,
                                                           const std::optional<std::filesystem::path>& path_base);

/// Whether a run's frozen inputs come from an ad-hoc agent (no agent file).
bool is_ad_hoc(const core::FrozenInputs& frozen);

/// For re-initializing an ad-hoc run with no agent named: its backend, model and effort
/// (what defines an ad-hoc agent) where `overrides` does not give others.
void keep_ad_hoc_agent(const core::FrozenInputs& frozen, RunOverrides& overrides);

}  // namespace agentry::engine

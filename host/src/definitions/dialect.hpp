#pragma once
// Which rules a definition file is read by: agentry's, or also agent-runner's where the
// two differ and agentry's are looser (docs/definitions.md "Coming from agent-runner").
// A file is in agent-runner's dialect when it has a top-level `name:` (agent-runner
// requires one, agentry takes the file's name) and none of agentry's own fields, or when
// AGENTRY_DEFINITIONS_DIALECT=agent-runner. Its rules then: `effort` is one of
// agent-runner's levels, and a var read from the environment with no `envName` is
// pointed out, since agentry reads another variable for it than agent-runner did.

#include "definitions/roots.hpp"
#include "definitions/yaml_node.hpp"

#include <array>
#include <initializer_list>
#include <string_view>

namespace agentry::definitions {

/// agent-runner's effort levels.
inline constexpr std::array<std::string_view, 7> agent_runner_effort_levels{"off",  "minimal", "low", "medium",
                                                                           "high", "xhigh",   "max"};

/// Whether the file whose top-level fields are `fields` is read in agent-runner's
/// dialect; `agentry_only` are the fields of its kind agent-runner does not have.
bool in_agent_runner_dialect(const YamlNode& fields, std::initializer_list<std::string_view> agentry_only,
                             const Roots& roots);

/// The dialect's name and how a file gets it, for messages.
inline constexpr std::string_view dialect_reason =
    "this file is read in agent-runner's dialect: it has a top-level name: and no agentry-only field, or "
    "AGENTRY_DEFINITIONS_DIALECT=agent-runner";

}  // namespace agentry::definitions

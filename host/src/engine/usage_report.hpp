#pragma once
// The usage report's question and answer as the engine's callers see them
// (Engine::usage, usage_queries.cpp); the store's own types stay below the engine.

#include "core/usage.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace agentry::engine {

/// What the report groups by: the run's agent, the UTC day, the run's group, the run or
/// one of its sessions.
enum class UsageGrouping { agent, day, group, run, session };

struct UsageQuery {
  UsageGrouping by = UsageGrouping::agent;
  std::optional<std::string> since;  // UTC days, inclusive (YYYY-MM-DD)
  std::optional<std::string> until;
};

struct UsageRow {
  std::string key;  // the agent's name, the day, the group id, the run id or "<run id>/<session index>"
  core::ModelUsage usage;
};

}  // namespace agentry::engine

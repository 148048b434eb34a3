#pragma once
// How run dependencies appear in RunSummary (dependencyState) and RunDetail
// (dependencies, dependents). Kept apart from projections.cpp: one job per file.

#include "core/run.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace agentry::events {

/// { state: "none" | "waiting" | "satisfied", total, satisfied }
boost::json::object dependency_state_json(const core::Run& run);
/// [{ type: "run", runId, satisfied, missing, status, createdAt }
///  | { type: "group", groupId, satisfied, missing, members, succeeded, createdAt }]
boost::json::array dependencies_json(const core::Run& run);
/// [{ runId, status, type: "run" | "group", groupId? }]: the runs waiting on this one.
boost::json::array dependents_json(const core::Run& run);

}  // namespace agentry::events

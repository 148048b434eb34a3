#pragma once
// RunSummary.schedule (the stored schedule, null when none) and the derived
// RunSummary.scheduleState: { state, reason, nextAt } where state is
//   "scheduled" - enabled, and a due occurrence would start the run as it stands;
//   "blocked"   - enabled, but an occurrence due now would be skipped (reason says why);
//   "disabled"  - disabled (by the user, or because the recurrence stopped: see reason);
//   "done"      - enabled, with no occurrence left.
// Documented in docs/api.md ("Schedules").

#include "core/run.hpp"

#include <boost/json/value.hpp>

namespace agentry::events {

boost::json::value schedule_json(const core::Run& run);
boost::json::value schedule_state_json(const core::Run& run);

}  // namespace agentry::events

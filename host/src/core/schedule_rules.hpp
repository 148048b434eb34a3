#pragma once
// Whether a run's due schedule may start it, as far as the run itself can tell: the
// same checks as a manual start (not archived, not active, ready, not passive), plus
// the schedule's own (a failed last run stops a recurrence unless continueOnFailure).
// The engine adds what the run alone cannot show (engine/schedules/start_checks.hpp); the
// derived RunSummary.scheduleState shows this answer ahead of time.

#include "core/run.hpp"

#include <optional>
#include <string>

namespace agentry::core {

struct ScheduleSkip {
  std::string code;     // "archived", "active", "not_ready", "passive", "damaged", "previous_failed", ...
  std::string message;  // a sentence for the audit record and the card
};

/// nullopt when a due occurrence of `schedule` may start `run` now. For mode clone,
/// `run` is the template and `last_clone` the run the last occurrence started, if any;
/// for the other modes `last_clone` is ignored.
std::optional<ScheduleSkip> schedule_blocker(const Run& run, const Schedule& schedule,
                                             const Run* last_clone = nullptr);

/// A run status that means the run's last session failed: error, exhausted, aborted, blocked.
bool is_failure(RunStatus status);

}  // namespace agentry::core

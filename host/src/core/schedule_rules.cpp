#include "core/schedule_rules.hpp"

namespace agentry::core {

bool is_failure(RunStatus status) {
  return status == RunStatus::error || status == RunStatus::exhausted || status == RunStatus::aborted ||
         status == RunStatus::blocked;
}

std::optional<ScheduleSkip> schedule_blocker(const Run& run, const Schedule& schedule, const Run* last_clone) {
  if (run.damaged) return ScheduleSkip{"damaged", "the run's stored inputs cannot be read"};
  if (run.archived) return ScheduleSkip{"archived", "the run is archived"};
  if (run.frozen.backend == passive_backend)
    return ScheduleSkip{"passive", "the run's backend is passive: nothing can start it on a schedule"};
  const bool clone = schedule.spec.kind == ScheduleKind::recurring && schedule.spec.mode == ScheduleMode::clone;
  if (run.status == RunStatus::running && !clone)
    return ScheduleSkip{"active", "the run is still running"};
  if (run.status == RunStatus::initialized)
    return ScheduleSkip{"not_ready", "the run is not ready: promote it with ready first"};
  if (clone) {
    if (run.status != RunStatus::ready && run.status != RunStatus::running && !is_terminal(run.status))
      return ScheduleSkip{"not_ready", "the template run is not ready"};
    if (last_clone && last_clone->status == RunStatus::running)
      return ScheduleSkip{"active", "the run the last occurrence started (" + last_clone->id + ") is still running"};
    if (last_clone && is_failure(last_clone->status) && !schedule.spec.continue_on_failure)
      return ScheduleSkip{"previous_failed", "the run the last occurrence started (" + last_clone->id + ") ended " +
                                                 std::string(to_string(last_clone->status)) +
                                                 " and continueOnFailure is false"};
    return std::nullopt;
  }
  if (schedule.spec.kind == ScheduleKind::recurring && schedule.last_outcome == "started" && is_failure(run.status) &&
      !schedule.spec.continue_on_failure)
    return ScheduleSkip{"previous_failed", "the last scheduled session ended " + std::string(to_string(run.status)) +
                                               " and continueOnFailure is false"};
  return std::nullopt;
}

}  // namespace agentry::core

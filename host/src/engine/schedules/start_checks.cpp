#include "engine/schedules/start_checks.hpp"

#include "engine/dependencies/dependency_checks.hpp"
#include "store/transaction.hpp"

namespace agentry::engine {

std::optional<core::ScheduleSkip> scheduled_start_refusal(store::Transaction& c, const core::Run& run,
                                                          const core::Schedule& schedule,
                                                          const core::Run* last_clone) {
  if (auto blocked = core::schedule_blocker(run, schedule, last_clone)) return blocked;
  // The run the schedule belongs to waits on its dependencies like any other start.
  if (auto met = detail::check_dependencies_met(c, run, "start"); !met)
    return core::ScheduleSkip{"dependencies_unmet", met.error().message};
  return std::nullopt;
}

}  // namespace agentry::engine

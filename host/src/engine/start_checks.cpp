#include "engine/start_checks.hpp"

namespace agentry::engine {

std::optional<core::ScheduleSkip> scheduled_start_refusal(store::Connection& /*c*/, const core::Run& run,
                                                          const core::Schedule& schedule,
                                                          const core::Run* last_clone) {
  return core::schedule_blocker(run, schedule, last_clone);
}

}  // namespace agentry::engine

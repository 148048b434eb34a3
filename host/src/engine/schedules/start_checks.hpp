#pragma once
// The start preconditions of a due schedule, in one place: what the run shows
// (core::schedule_blocker: archived, active, not ready, passive, a failed previous
// occurrence) and what only the store can tell. Every check a scheduled start needs
// beyond the run itself (dependencies met, for one) belongs in this function, which
// the due path calls once, inside its read snapshot.

#include "core/run.hpp"
#include "core/schedule_rules.hpp"

#include <optional>

namespace agentry::store {
class Transaction;
}  // namespace agentry::store

namespace agentry::engine {

std::optional<core::ScheduleSkip> scheduled_start_refusal(store::Transaction& c, const core::Run& run,
                                                          const core::Schedule& schedule,
                                                          const core::Run* last_clone);

}  // namespace agentry::engine

#pragma once
// How a schedule is stored, whatever the engine: its spec and its state as JSON text,
// its next due time as ISO 8601 UTC text (so the (enabled, next_at) index orders due
// times). Each engine moves these columns; this decides what they hold.

#include "core/schedule.hpp"

#include <optional>
#include <string>

namespace agentry::store {

/// The columns of a `schedules` row, in the order the repositories select them.
struct ScheduleRow {
  std::string run_id;
  std::string kind;
  std::string spec_json;
  bool enabled = true;
  std::optional<std::string> next_at;
  std::optional<std::string> last_at;
  std::string updated_at;
  std::string state_json;
};

ScheduleRow encode_schedule(const core::Schedule& schedule);
/// nullopt (logged) when the spec cannot be read: one damaged row must not keep the other
/// schedules from being listed or armed. Unreadable state reads as no state.
std::optional<core::Schedule> decode_schedule(const ScheduleRow& row);

}  // namespace agentry::store

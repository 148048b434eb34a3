#pragma once
// Persistence of run schedules: at most one per run (the `schedules` table of
// migration 1, with state_json from migration 4). next_at is ISO 8601 UTC text with
// milliseconds, so the (enabled, next_at) index orders due times.

#include "core/run.hpp"
#include "core/schedule.hpp"
#include "store/sqlite.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::store {

struct ArmedSchedule {
  std::string run_id;
  std::int64_t next_ms = 0;
};

class ScheduleRepository {
 public:
  /// Inserts or replaces the run's schedule.
  static void put(Connection& c, const core::Schedule& schedule);
  /// nullopt when the run has none, or when the stored row cannot be read (logged).
  static std::optional<core::Schedule> get(Connection& c, std::string_view run_id);
  static bool remove(Connection& c, std::string_view run_id);
  /// The schedules of these runs (lists, summaries), by run id.
  static std::map<std::string, core::Schedule> for_runs(Connection& c, const std::vector<std::string>& run_ids);
  /// Sets run.schedule of each run from the store (views and lists show it).
  static void attach(Connection& c, std::vector<core::Run>& runs);
  static void attach(Connection& c, core::Run& run);
  /// Every enabled schedule with a next due time: what startup arms. Reads two columns.
  static std::vector<ArmedSchedule> armed(Connection& c);
};

}  // namespace agentry::store

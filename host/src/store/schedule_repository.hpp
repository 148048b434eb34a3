#pragma once
// Persistence of run schedules: at most one per run (the `schedules` table of
// migration 1, with state_json from migration 4). next_at is ISO 8601 UTC text with
// milliseconds, so the (enabled, next_at) index orders due times.

#include "core/run.hpp"
#include "core/schedule.hpp"

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
  virtual ~ScheduleRepository() = default;

  /// Inserts or replaces the run's schedule.
  virtual void put(const core::Schedule& schedule) = 0;
  /// nullopt when the run has none, or when the stored row cannot be read (logged).
  virtual std::optional<core::Schedule> get(std::string_view run_id) = 0;
  virtual bool remove(std::string_view run_id) = 0;
  /// The schedules of these runs (lists, summaries), by run id.
  virtual std::map<std::string, core::Schedule> for_runs(const std::vector<std::string>& run_ids) = 0;
  /// Sets run.schedule of each run from the store (views and lists show it): one
  /// for_runs() for them all.
  void attach(std::vector<core::Run>& runs) {
    std::vector<std::string> ids;
    ids.reserve(runs.size());
    for (const auto& r : runs) ids.push_back(r.id);
    auto schedules = for_runs(ids);
    if (schedules.empty()) return;
    for (auto& r : runs)
      if (auto it = schedules.find(r.id); it != schedules.end()) r.schedule = std::move(it->second);
  }
  void attach(core::Run& run) { run.schedule = get(run.id); }
  /// Claims the occurrence due at `due_at` (as next_at holds it): marks it handled
  /// (last_at = due_at, updated_at = `version`) if it is the schedule's next one and
  /// nobody marked it yet, in one statement: two daemons racing for one occurrence
  /// cannot both win (the loser sees it marked, or its transaction is run again).
  virtual bool claim(std::string_view run_id, std::string_view due_at, std::string_view version) = 0;
  /// Every enabled schedule with a next due time: what startup arms. Reads two columns.
  virtual std::vector<ArmedSchedule> armed() = 0;
};

}  // namespace agentry::store

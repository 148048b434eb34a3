#pragma once
// Schedules: setting, clearing, enabling and disabling a run's schedule
// (schedule_commands.cpp), and starting due runs (schedule_firing.cpp). The service owns
// the one armed timer for the earliest due run and the set of due starts under way; it
// starts a run through RunStarts, exactly as a user's resume would.

#include "core/result.hpp"
#include "core/run.hpp"
#include "core/schedule.hpp"
#include "core/schedule_rules.hpp"
#include "engine/forward.hpp"
#include "engine/requests.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace agentry::engine {

class ScheduleRuntime;
class TimerSource;

inline constexpr int default_min_recurrence_interval_sec = 300;

struct ScheduleSettings {
  /// Where time and wake-ups come from (tests inject a fake clock; null: the wall
  /// clock and the pool's timers).
  std::shared_ptr<TimerSource> timers{};
  /// The shortest gap a recurring schedule may have between occurrences
  /// (AGENTRY_MIN_RECURRENCE_INTERVAL_SEC).
  int min_recurrence_interval_sec = default_min_recurrence_interval_sec;
};

class ScheduleService {
 public:
  ScheduleService(store::Store& db, events::EventBus& bus, core::ThreadPool& pool, RunStarts& runs,
                  ScheduleSettings settings);
  /// stop()
  ~ScheduleService();
  ScheduleService(const ScheduleService&) = delete;
  ScheduleService& operator=(const ScheduleService&) = delete;

  // Commands. The spec comes from core::parse_schedule_request(body, now_ms()).
  core::Result<core::Run> set(const std::string& run_id, const core::ScheduleSpec& spec, const Actor& actor);
  /// One-time schedules only; a recurring one is disabled instead (CONFLICT).
  core::Result<core::Run> clear(const std::string& run_id, const Actor& actor);
  core::Result<core::Run> set_enabled(const std::string& run_id, bool enabled, const Actor& actor);

  /// Daemon startup, after reconciliation: occurrences missed while no daemon ran are
  /// recorded (one-time schedules cleared, recurring ones advanced; docs/api.md), the
  /// rest armed, and from then on due schedules start their runs. Returns how many are armed.
  core::Result<int> start();
  /// Disarms every schedule and waits for due occurrences being handled. Idempotent.
  void stop();
  std::size_t armed_count() const;
  /// The schedules' clock (ScheduleSettings::timers).
  std::int64_t now_ms() const;

  // For run commands that set a schedule together with another change (init from an
  // assignment, ready): check first, store inside their write, arm after the commit.
  /// VALIDATION_FAILED when the spec fires too often or never (docs/api.md#schedules).
  core::Result<void> check(const core::ScheduleSpec& spec) const;
  /// An assignment's `schedule:` checked as a request body would be (nullopt: none).
  core::Result<std::optional<core::ScheduleSpec>> from_assignment(const boost::json::value& schedule,
                                                                  const std::string& assignment) const;
  /// Stores the run's schedule and audits schedule.set with `source` ("assignment",
  /// "ready"); the caller saves the run, then arms it.
  void put(store::Transaction& c, core::Run& run, const core::ScheduleSpec& spec, const Actor& actor,
             const std::string& source) const;
  /// After a committed change of the run's schedule (here or by another process).
  void arm(const std::string& run_id, const std::optional<core::Schedule>& schedule);

 private:
  void on_due(const std::string& run_id, std::int64_t due_ms);
  core::Result<core::Run> start_due_run(const core::Run& run, const core::Schedule& schedule, const Actor& actor);
  core::Result<core::Run> clone_for_schedule(const std::string& template_id, const Actor& actor);
  void record_occurrence(const std::string& run_id, std::int64_t due_ms, const std::string& schedule_version,
                         const std::optional<core::ScheduleSkip>& skip, const std::optional<std::string>& started);
  core::Result<void> advance_missed(const std::string& run_id, std::int64_t due_ms);

  store::Store& db_;
  events::EventBus& bus_;
  RunStarts& runs_;
  const int min_interval_sec_;
  std::unique_ptr<ScheduleRuntime> runtime_;
};

}  // namespace agentry::engine

// ScheduleService: setting, clearing, enabling and disabling a run's schedule. Each is
// one write job (the schedule row, the run's revision and an audit record commit
// together); the scheduler is re-armed after the commit.

#include "engine/schedules/schedule_service.hpp"

#include "engine/mutate_run.hpp"

#include "core/clock.hpp"
#include "core/cron.hpp"
#include "core/time_zone.hpp"
#include "engine/mutation_support.hpp"
#include "engine/schedules/schedule_runtime.hpp"
#include "store/schedule_repository.hpp"
#include "store/transaction.hpp"

namespace agentry::engine {
namespace json = boost::json;
using core::Run;
using core::Schedule;

namespace {

/// VALIDATION_FAILED when a recurring spec fires more often than the minimum interval
/// anywhere in the coming year (DST changes included), or never.
core::Result<void> check_recurrence(const core::ScheduleSpec& spec, std::int64_t now_ms, int min_interval_sec) {
  if (spec.kind != core::ScheduleKind::recurring) return core::ok();
  auto expr = core::parse_cron(spec.cron);
  auto zone = core::TimeZone::locate(spec.timezone);
  if (!expr) return expr.failure();
  if (!zone) return zone.failure();
  if (auto short_gap = core::find_short_interval(*expr, *zone, now_ms / 1000, min_interval_sec, 366LL * 86400)) {
    return core::fail(core::ErrorCode::validation,
                      "cron '" + spec.cron + "' in " + spec.timezone + " fires " + std::to_string(short_gap->gap) +
                          " s apart (at " + core::format_iso8601(short_gap->at * 1000) +
                          "); the minimum interval between occurrences is " + std::to_string(min_interval_sec) +
                          " s (AGENTRY_MIN_RECURRENCE_INTERVAL_SEC)",
                      {{"field", "cron"}, {"minRecurrenceIntervalSec", min_interval_sec}});
  }
  return core::ok();
}

core::Failure no_schedule(const std::string& run_id) {
  return core::fail(core::ErrorCode::conflict, "run " + run_id + " has no schedule", {{"runId", run_id}});
}

}  // namespace

ScheduleService::ScheduleService(store::Store& db, events::EventBus& bus, core::ThreadPool& pool, RunStarts& runs,
                                 ScheduleSettings settings)
    : db_(db),
      bus_(bus),
      runs_(runs),
      min_interval_sec_(settings.min_recurrence_interval_sec),
      runtime_(std::make_unique<ScheduleRuntime>(
          settings.timers ? settings.timers : pool_timer_source(pool),
          [this](const std::string& run_id, std::int64_t due_ms) { on_due(run_id, due_ms); })) {}

ScheduleService::~ScheduleService() { stop(); }

std::int64_t ScheduleService::now_ms() const { return runtime_->scheduler.timers().now_ms(); }

std::size_t ScheduleService::armed_count() const { return runtime_->scheduler.armed_count(); }

void ScheduleService::arm(const std::string& run_id, const std::optional<Schedule>& schedule) {
  if (schedule && schedule->enabled && schedule->next_ms) runtime_->scheduler.arm(run_id, *schedule->next_ms);
  else runtime_->scheduler.disarm(run_id);
}

core::Result<Run> ScheduleService::set(const std::string& run_id, const core::ScheduleSpec& spec, const Actor& actor) {
  if (auto ok = check(spec); !ok) return ok.failure();
  const std::int64_t now = now_ms();
  auto next = core::next_due_ms(spec, now);
  if (!next)
    return core::fail(core::ErrorCode::validation, "the schedule never comes due", {{"field", "cron"}});
  auto saved = detail::mutate_run<Run>(db_, bus_, run_id, [&](store::Transaction& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (run->damaged)
      return core::fail(core::ErrorCode::conflict, "cannot schedule run " + run_id + ": its stored inputs cannot be read",
                        {{"runId", run_id}});
    Schedule schedule;
    schedule.run_id = run_id;
    schedule.spec = spec;
    schedule.next_ms = next;
    schedule.updated_at = core::format_iso8601(now);
    c.schedules().put(schedule);
    detail::save_with_audit(c, *run, "schedule.set", actor,
                            {{"schedule", core::spec_to_json(spec)}, {"nextAt", core::format_iso8601(*next)}});
    run->schedule = std::move(schedule);
    return run;
  });
  if (saved) arm(run_id, saved->schedule);
  return saved;
}

core::Result<Run> ScheduleService::clear(const std::string& run_id, const Actor& actor) {
  auto cleared = detail::mutate_run<Run>(db_, bus_, run_id, [&](store::Transaction& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    auto schedule = c.schedules().get(run_id);
    if (!schedule) return no_schedule(run_id);
    if (schedule->spec.kind == core::ScheduleKind::recurring)
      return core::fail(core::ErrorCode::conflict,
                        "run " + run_id + " has a recurring schedule, which cannot be cleared; disable it instead",
                        {{"runId", run_id}, {"kind", "recurring"}});
    c.schedules().remove(run_id);
    detail::save_with_audit(c, *run, "schedule.cleared", actor, {{"schedule", core::spec_to_json(schedule->spec)}});
    return run;
  });
  if (cleared) arm(run_id, std::nullopt);
  return cleared;
}

core::Result<Run> ScheduleService::set_enabled(const std::string& run_id, bool enabled, const Actor& actor) {
  const std::int64_t now = now_ms();
  auto changed = detail::mutate_run<Run>(db_, bus_, run_id, [&](store::Transaction& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    auto schedule = c.schedules().get(run_id);
    if (!schedule) return no_schedule(run_id);
    if (schedule->enabled == enabled) {
      run->schedule = std::move(schedule);
      return run;
    }
    if (enabled) {
      if (schedule->spec.kind == core::ScheduleKind::once) {
        if (!schedule->next_ms || *schedule->next_ms <= now)
          return core::fail(core::ErrorCode::conflict,
                            "the one-time schedule of run " + run_id + " is past its time; set a new one",
                            {{"runId", run_id}});
      } else {
        if (auto ok = check_recurrence(schedule->spec, now, min_interval_sec_); !ok)
          return ok.failure();
        // Occurrences that passed while it was disabled are not made up for.
        schedule->next_ms = core::next_due_ms(schedule->spec, now);
      }
      if (schedule->last_outcome == "disabled") schedule->last_outcome.clear(), schedule->last_reason.clear();
    }
    schedule->enabled = enabled;
    schedule->updated_at = core::format_iso8601(now);
    c.schedules().put(*schedule);
    json::object data{{"kind", core::to_string(schedule->spec.kind)}};
    if (enabled && schedule->next_ms) data["nextAt"] = core::format_iso8601(*schedule->next_ms);
    detail::save_with_audit(c, *run, enabled ? "schedule.enabled" : "schedule.disabled", actor, std::move(data));
    run->schedule = std::move(schedule);
    return run;
  });
  if (changed) arm(run_id, changed->schedule);
  return changed;
}

}  // namespace agentry::engine

namespace agentry::engine {

core::Result<void> ScheduleService::check(const core::ScheduleSpec& spec) const {
  const std::int64_t now = now_ms();
  if (auto ok = check_recurrence(spec, now, min_interval_sec_); !ok) return ok.failure();
  if (!core::next_due_ms(spec, now))
    return core::fail(core::ErrorCode::validation, "the schedule never comes due", {{"field", "cron"}});
  return core::ok();
}

core::Result<std::optional<core::ScheduleSpec>> ScheduleService::from_assignment(const json::value& schedule,
                                                                                     const std::string& assignment) const {
  if (schedule.is_null()) return std::optional<core::ScheduleSpec>{};
  auto invalid = [&](const std::string& why) {
    return core::fail(core::ErrorCode::validation, "assignment '" + assignment + "' has an invalid schedule: " + why,
                      {{"field", "schedule"}, {"assignment", assignment}});
  };
  if (!schedule.is_object()) return invalid("schedule: must be a mapping such as {cron: \"0 9 * * *\"}");
  auto spec = core::parse_schedule_request(schedule.as_object(), now_ms());
  if (!spec) return invalid(spec.error().message);
  if (auto ok = check(*spec); !ok) return invalid(ok.error().message);
  return std::optional<core::ScheduleSpec>(std::move(*spec));
}

void ScheduleService::put(store::Transaction& c, Run& run, const core::ScheduleSpec& spec, const Actor& actor,
                          const std::string& source) const {
  const std::int64_t now = now_ms();
  Schedule schedule;
  schedule.run_id = run.id;
  schedule.spec = spec;
  schedule.next_ms = core::next_due_ms(spec, now);
  schedule.updated_at = core::format_iso8601(now);
  c.schedules().put(schedule);
  json::object data{{"schedule", core::spec_to_json(spec)}, {"source", source}};
  if (schedule.next_ms) data["nextAt"] = core::format_iso8601(*schedule.next_ms);
  detail::append_audit(c, run.id, "schedule.set", actor, std::move(data));
  run.schedule = std::move(schedule);
}

}  // namespace agentry::engine

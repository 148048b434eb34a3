// ScheduleService: due schedules. A due occurrence is checked like a manual start
// (engine/schedules/start_checks.hpp), started through the same engine calls as a manual start
// (resume; reset then resume; a clone then resume), and recorded on the schedule's run
// with its outcome: schedule.fired, or schedule.skipped with the reason. Runs on a pool
// thread (the scheduler posts each due run as its own task), never on a request worker
// or the writer thread.
//
// Startup policy (the reference's): an occurrence that came due while no daemon ran is
// not started late; it is recorded as schedule.missed, a one-time schedule is cleared
// and a recurring one advances to its next occurrence after now (no burst of catch-up
// runs), and is disabled if that would break the minimum interval.

#include "engine/schedules/schedule_service.hpp"

#include "engine/mutate_run.hpp"
#include "engine/run_starts.hpp"

#include "core/clock.hpp"
#include "core/cron.hpp"
#include "core/ids.hpp"
#include "core/log.hpp"
#include "core/metrics.hpp"
#include "core/time_zone.hpp"
#include "engine/mutation_support.hpp"
#include "engine/schedules/schedule_runtime.hpp"
#include "engine/schedules/start_checks.hpp"
#include "store/schedule_repository.hpp"
#include "store/task_repository.hpp"
#include "store/run_repository.hpp"
#include "store/store.hpp"

namespace agentry::engine {
namespace json = boost::json;
using core::Run;
using core::Schedule;

namespace {

const Actor schedule_actor{"schedule"};

/// The next occurrence of a recurring schedule after `from_ms`, and whether the one
/// after it keeps the minimum interval. nullopt `next` when none comes.
struct Advance {
  std::optional<std::int64_t> next;
  std::optional<std::string> violation;  // why the recurrence must stop
};

Advance advance(const core::ScheduleSpec& spec, std::int64_t from_ms, int min_interval_sec) {
  Advance out;
  out.next = core::next_due_ms(spec, from_ms);
  if (!out.next) return out;
  if (auto after = core::next_due_ms(spec, *out.next); after && (*after - *out.next) / 1000 < min_interval_sec)
    out.violation = "occurrences at " + core::format_iso8601(*out.next) + " and " + core::format_iso8601(*after) +
                    " are closer than the minimum interval of " + std::to_string(min_interval_sec) +
                    " s (AGENTRY_MIN_RECURRENCE_INTERVAL_SEC)";
  return out;
}

/// Applies `a` to a recurring schedule: the next due time, or disabled with the reason.
void apply_advance(Schedule& s, const Advance& a) {
  s.next_ms = a.next;
  if (a.violation) {
    s.enabled = false;
    s.last_outcome = "disabled";
    s.last_reason = "recurrence stopped: " + *a.violation;
  }
}

/// After an occurrence (fired, skipped or missed): a one-time schedule is spent and
/// removed; a recurring one advances from `from_ms`. Says which in the audit `data`.
void spend_or_advance(store::Transaction& c, const std::string& run_id, std::optional<Schedule>& schedule,
                      std::int64_t from_ms, int min_interval_sec, json::object& data) {
  if (schedule->spec.kind == core::ScheduleKind::once) {
    c.schedules().remove(run_id);
    data["cleared"] = true;
    schedule.reset();
    return;
  }
  apply_advance(*schedule, advance(schedule->spec, from_ms, min_interval_sec));
  if (schedule->next_ms) data["nextAt"] = core::format_iso8601(*schedule->next_ms);
  if (!schedule->enabled) data["disabled"] = schedule->last_reason;
  c.schedules().put(*schedule);
}

/// Claims the occurrence due at `due_ms` for this daemon: of the daemons that armed the
/// schedule (every member of a shared store does), exactly one starts and records it.
/// The claim marks the occurrence handled in one statement (ScheduleRepository::claim):
/// a daemon that comes second finds it marked, or the schedule gone, and leaves it; two
/// claiming at once race on the one row, which the store settles (SQLite's single
/// writer; on PostgreSQL the loser's transaction is run again on fresh data). The
/// schedule's new version, or nullopt.
std::optional<std::string> claim_occurrence(store::Store& db, const std::string& run_id, std::int64_t due_ms,
                                            const std::string& read_version, std::int64_t now) {
  auto claimed = db.write<std::optional<std::string>>(
      [&](store::Transaction& c) -> core::Result<std::optional<std::string>> {
        // Later than the version read, even within its millisecond.
        const auto read_ms = core::parse_iso8601(read_version).value_or(0);
        std::string version = core::format_iso8601(std::max(now, read_ms + 1));
        if (!c.schedules().claim(run_id, core::format_iso8601(due_ms), version)) return std::optional<std::string>{};
        return std::optional<std::string>(std::move(version));
      });
  if (!claimed) {
    core::log_error("claiming a due schedule failed", {{"runId", run_id}, {"error", claimed.error().message}});
    return std::nullopt;
  }
  return *claimed;
}

}  // namespace

void ScheduleService::on_due(const std::string& run_id, std::int64_t due_ms) {
  ScheduleRuntime::Pass pass(*runtime_);
  if (!pass) return;
  struct Loaded {
    Run run;
    Schedule schedule;
    std::optional<core::ScheduleSkip> skip;
  };
  auto loaded = db_.read([&](store::Transaction& c) -> core::Result<std::optional<Loaded>> {
    auto run = c.runs().get(run_id);
    if (!run) return std::optional<Loaded>{};  // deleted since it was armed
    auto schedule = c.schedules().get(run_id);
    // Changed since it was armed: the change re-armed it.
    if (!schedule || !schedule->enabled || schedule->next_ms != due_ms) return std::optional<Loaded>{};
    std::optional<Run> last_clone;
    if (schedule->spec.mode == core::ScheduleMode::clone && schedule->last_run_id)
      last_clone = c.runs().get(*schedule->last_run_id);
    auto skip = scheduled_start_refusal(c, *run, *schedule, last_clone ? &*last_clone : nullptr);
    return std::optional<Loaded>(Loaded{std::move(*run), std::move(*schedule), std::move(skip)});
  });
  if (!loaded) {
    core::log_error("reading a due schedule failed", {{"runId", run_id}, {"error", loaded.error().message}});
    return;
  }
  if (!*loaded) return;
  auto& [run, schedule, skip] = **loaded;
  auto version = claim_occurrence(db_, run_id, due_ms, schedule.updated_at, now_ms());
  if (!version) return;  // another daemon handles this occurrence, or it changed meanwhile
  static auto& lag = core::metrics::registry().histogram(
      "agentry_schedule_lag_seconds", "From an occurrence's due time to this daemon taking it up.",
      {0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60});
  lag.observe(static_cast<double>(std::max<std::int64_t>(0, now_ms() - due_ms)) / 1000.0);
  schedule.updated_at = *version;
  const char* what = "fired";
  const bool clone = schedule.spec.kind == core::ScheduleKind::recurring && schedule.spec.mode == core::ScheduleMode::clone;
  if (!skip && !clone && runs_.is_live(run_id)) skip = core::ScheduleSkip{"active", "the run is still running"};
  std::optional<std::string> started;
  if (!skip) {
    if (!runtime_->begin_start(run_id)) {
      skip = core::ScheduleSkip{"pending_start", "a start of the run is already under way"};
    } else {
      auto result = start_due_run(run, schedule, schedule_actor);
      runtime_->end_start(run_id);
      if (result) started = result->id;
      else skip = core::ScheduleSkip{"start_refused", result.error().message};
    }
  }
  if (skip) what = "skipped";
  core::metrics::registry()
      .counter("agentry_schedule_occurrences_total", "Schedule occurrences this daemon took up, by outcome.",
               {{"outcome", what}})
      .inc();
  record_occurrence(run_id, due_ms, schedule.updated_at, skip, started);
}

core::Result<Run> ScheduleService::start_due_run(const Run& run, const Schedule& schedule, const Actor& actor) {
  if (schedule.spec.kind == core::ScheduleKind::recurring) {
    if (schedule.spec.mode == core::ScheduleMode::clone) {
      auto copy = clone_for_schedule(run.id, actor);
      if (!copy) return copy;
      return runs_.open_next_session(copy->id, ResumeRequest{}, actor, /*automatic=*/false);
    }
    if (schedule.spec.mode == core::ScheduleMode::reset && run.session_count > 0) {
      if (auto reset_run = runs_.reset(run.id, actor); !reset_run) return reset_run;
    }
  }
  return runs_.open_next_session(run.id, ResumeRequest{}, actor, /*automatic=*/false);
}

core::Result<Run> ScheduleService::clone_for_schedule(const std::string& template_id, const Actor& actor) {
  Run copy;
  std::string new_id = core::new_run_id();
  return detail::mutate_run<Run>(db_, bus_, new_id, [&](store::Transaction& c) -> core::Result<Run> {
    auto source = detail::load_run(c, template_id);
    if (!source) return source.failure();
    copy = *source;
    copy.id = new_id;
    copy.status = core::RunStatus::ready;
    copy.status_reason.clear();
    copy.created_at = copy.updated_at = core::now_iso8601();
    copy.started_at.reset();
    copy.finished_at.reset();
    copy.controller_id.clear();
    copy.session_count = 0;
    copy.attempt_count = 0;
    copy.revision = 1;
    copy.pinned = false;
    copy.note.reset();
    copy.archived = false;
    copy.archived_at.reset();
    copy.backend_session_id.reset();
    copy.queued_message_count = 0;
    copy.schedule.reset();
    // Copies stay in the template's group (run_group_id is copied): found together.
    c.runs().insert(copy);
    int count = 0;
    for (auto task : c.tasks().list(template_id)) {
      task.run_id = new_id;
      task.status = core::TaskStatus::pending;
      task.notes.clear();
      task.created_at = task.updated_at = copy.created_at;
      c.tasks().insert(task);
      ++count;
    }
    detail::append_audit(c, new_id, "run.initialized", actor,
                         {{"agent", copy.frozen.agent_name},
                          {"assignment", copy.frozen.assignment_name},
                          {"backend", copy.frozen.backend},
                          {"cwd", copy.cwd},
                          {"runGroupId", copy.run_group_id},
                          {"taskCount", count},
                          {"clonedFrom", template_id}});
    return copy;
  });
}

void ScheduleService::record_occurrence(const std::string& run_id, std::int64_t due_ms, const std::string& schedule_version,
                               const std::optional<core::ScheduleSkip>& skip,
                               const std::optional<std::string>& started) {
  const std::int64_t now = now_ms();
  auto recorded = detail::mutate_run<std::optional<Schedule>>(db_, bus_, run_id, [&](store::Transaction& c)
                                                              -> core::Result<std::optional<Schedule>> {
    auto run = c.runs().get(run_id);
    if (!run) return std::optional<Schedule>{};
    auto schedule = c.schedules().get(run_id);
    json::object data{{"dueAt", core::format_iso8601(due_ms)}};
    if (started) data["startedRunId"] = *started;
    if (skip) {
      data["reason"] = skip->message;
      data["code"] = skip->code;
    }
    // Changed by someone while this occurrence was handled: their change stands.
    const bool current = schedule && schedule->updated_at == schedule_version && schedule->next_ms == due_ms;
    if (current) {
      schedule->last_at = core::format_iso8601(due_ms);
      schedule->last_outcome = skip ? "skipped" : "started";
      schedule->last_reason = skip ? skip->message : "";
      if (started) schedule->last_run_id = *started;
      schedule->updated_at = core::format_iso8601(now);
      spend_or_advance(c, run_id, schedule, std::max(now, due_ms), min_interval_sec_, data);
    }
    detail::save_with_audit(c, *run, skip ? "schedule.skipped" : "schedule.fired", schedule_actor, std::move(data));
    if (!current) return std::optional<Schedule>{};  // nothing to re-arm from here
    return schedule;
  });
  if (!recorded) {
    core::log_error("recording a schedule occurrence failed", {{"runId", run_id}, {"error", recorded.error().message}});
    return;
  }
  if (*recorded) arm(run_id, *recorded);
  if (skip) core::log_info("scheduled start skipped", {{"runId", run_id}, {"reason", skip->message}});
}

core::Result<void> ScheduleService::advance_missed(const std::string& run_id, std::int64_t due_ms) {
  const std::int64_t now = now_ms();
  auto advanced = detail::mutate_run<std::optional<Schedule>>(db_, bus_, run_id, [&](store::Transaction& c)
                                                              -> core::Result<std::optional<Schedule>> {
    auto run = c.runs().get(run_id);
    auto schedule = c.schedules().get(run_id);
    if (!run || !schedule || schedule->next_ms != due_ms) return std::optional<Schedule>{};
    json::object data{{"dueAt", core::format_iso8601(due_ms)}, {"reason", "the daemon was not running"}};
    schedule->last_at = core::format_iso8601(due_ms);
    schedule->last_outcome = "missed";
    schedule->last_reason = "the daemon was not running at " + core::format_iso8601(due_ms);
    schedule->updated_at = core::format_iso8601(now);
    spend_or_advance(c, run_id, schedule, now, min_interval_sec_, data);
    detail::save_with_audit(c, *run, "schedule.missed", Actor{"daemon"}, std::move(data));
    return schedule;
  });
  if (!advanced) return advanced.failure();
  if (*advanced) arm(run_id, *advanced);
  return core::ok();
}

core::Result<int> ScheduleService::start() {
  runtime_->start();
  auto armed = db_.read([](store::Transaction& c) -> core::Result<std::vector<store::ArmedSchedule>> {
    return c.schedules().armed();
  });
  if (!armed) return armed.failure();
  const std::int64_t now = now_ms();
  std::vector<std::pair<std::string, std::int64_t>> future;
  future.reserve(armed->size());
  std::vector<store::ArmedSchedule> missed;
  for (auto& a : *armed) {
    if (a.next_ms <= now) missed.push_back(std::move(a));
    else future.emplace_back(std::move(a.run_id), a.next_ms);
  }
  runtime_->scheduler.arm_all(future);
  for (const auto& m : missed)
    if (auto ok = advance_missed(m.run_id, m.next_ms); !ok)
      core::log_error("recording a missed schedule failed", {{"runId", m.run_id}, {"error", ok.error().message}});
  if (!missed.empty()) core::log_info("schedules missed while the daemon was down", {{"count", std::to_string(missed.size())}});
  return static_cast<int>(runtime_->scheduler.armed_count());
}

void ScheduleService::stop() { runtime_->stop(); }

}  // namespace agentry::engine

// Schedules through the engine, with an injected clock: set/clear/enable/disable, due
// starts through the manual start path, skips with their reasons, the modes, and the
// startup policy for occurrences missed while no daemon ran. No test waits for time.

#include "engine/engine.hpp"

#include "core/clock.hpp"
#include "core/dependency.hpp"
#include "fake_timers.hpp"
#include "live_run_fixture.hpp"

#include <algorithm>

namespace agentry::engine::testing {
namespace {
namespace json = boost::json;

const std::int64_t t0 = *core::parse_instant_ms("2024-06-01T12:00:00Z");
constexpr std::int64_t minute = 60 * 1000;
constexpr std::int64_t hour = 60 * minute;

class ScheduleCommandsTest : public LiveRunTest {
 protected:
  ScheduleCommandsTest() { schedule_timers_ = timers_; }
  std::shared_ptr<FakeTimers> timers_ = std::make_shared<FakeTimers>(t0);

  core::ScheduleSpec spec(const char* body) {
    auto s = core::parse_schedule_request(json::parse(body).as_object(), timers_->now_ms());
    EXPECT_TRUE(s) << body << ": " << (s ? "" : s.error().message);
    return s ? *s : core::ScheduleSpec{};
  }
  /// An initialized run of `agent` with a message; promoted to ready when asked.
  core::Run run_of(const std::string& agent, bool ready) {
    InitRequest r;
    r.agent = agent;
    r.caller_cwd = work_dir_.string();
    r.overrides.message = "go";
    auto run = init_run(r);
    if (ready) {
      EXPECT_TRUE(engine_->ready(run.id, actor_));
    }
    return run;
  }
  std::vector<std::string> audit_types(const std::string& run_id) {
    std::vector<std::string> out;
    for (const auto& e : audit_of(run_id)) out.push_back(e.type);
    return out;
  }
  std::optional<core::AuditEvent> last_audit(const std::string& run_id, const std::string& type) {
    std::optional<core::AuditEvent> found;
    for (const auto& e : audit_of(run_id))
      if (e.type == type) found = e;
    return found;
  }
  std::optional<core::Schedule> schedule_of(const std::string& run_id) { return view_of(run_id).run.schedule; }
  /// Whether every live run let go in time. A settled run's live run lets go once its
  /// after-attempt steps (diffstat, on the blocking pool) are done; until then an
  /// occurrence would rightly be skipped as active.
  bool live_runs_let_go() {
    return eventually([&] { return engine_->live_run_count() == 0; });
  }
};

TEST_F(ScheduleCommandsTest, SetReadEnableDisableAndClear) {
  auto run = run_of("talker", true);
  auto set = engine_->schedules().set(run.id, spec(R"({"cron":"0 9 * * *","timezone":"Europe/Berlin","mode":"clone"})"),
                                   actor_);
  ASSERT_TRUE(set) << set.error().message;
  auto s = schedule_of(run.id);
  ASSERT_TRUE(s);
  EXPECT_EQ(core::format_iso8601(*s->next_ms), "2024-06-02T07:00:00.000Z");
  EXPECT_EQ(s->spec.mode, core::ScheduleMode::clone);
  // Recurring: cleared only by disabling.
  auto clear = engine_->schedules().clear(run.id, actor_);
  ASSERT_FALSE(clear);
  EXPECT_EQ(clear.error().code, core::ErrorCode::conflict);
  ASSERT_TRUE(engine_->schedules().set_enabled(run.id, false, actor_));
  EXPECT_FALSE(schedule_of(run.id)->enabled);
  timers_->advance_to(t0 + 48 * hour);
  ASSERT_TRUE(engine_->schedules().set_enabled(run.id, true, actor_));
  // Re-enabled: the next occurrence after now, none made up for.
  EXPECT_EQ(core::format_iso8601(*schedule_of(run.id)->next_ms), "2024-06-04T07:00:00.000Z");
  ASSERT_TRUE(engine_->schedules().set(run.id, spec(R"({"delay":"30m"})"), actor_));
  EXPECT_EQ(*schedule_of(run.id)->next_ms, t0 + 48 * hour + 30 * minute);
  ASSERT_TRUE(engine_->schedules().clear(run.id, actor_));
  EXPECT_FALSE(schedule_of(run.id));
  auto none = engine_->schedules().set_enabled(run.id, true, actor_);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, core::ErrorCode::conflict);
  auto types = audit_types(run.id);
  for (const char* t : {"schedule.set", "schedule.disabled", "schedule.enabled", "schedule.cleared"})
    EXPECT_NE(std::find(types.begin(), types.end(), t), types.end()) << t;
  EXPECT_FALSE(engine_->schedules().set("nope", spec(R"({"delay":"1m"})"), actor_));
}

TEST_F(ScheduleCommandsTest, TheMinimumIntervalIsEnforced) {
  auto run = run_of("talker", true);
  auto every_minute = engine_->schedules().set(run.id, spec(R"({"cron":"* * * * *"})"), actor_);
  ASSERT_FALSE(every_minute);
  EXPECT_EQ(every_minute.error().code, core::ErrorCode::validation);
  EXPECT_NE(every_minute.error().message.find("AGENTRY_MIN_RECURRENCE_INTERVAL_SEC"), std::string::npos);
  EXPECT_TRUE(engine_->schedules().set(run.id, spec(R"({"cron":"*/5 * * * *"})"), actor_));  // exactly 300 s
  // Wall-clock hours two apart become one apart across New York's spring change.
  max_call_depth_ = default_max_call_depth;
  auto dst = engine_->schedules().set(run.id, spec(R"({"cron":"30 1,3 * * *","timezone":"America/New_York"})"), actor_);
  EXPECT_TRUE(dst);  // 3600 s >= 300 s
}

TEST_F(ScheduleCommandsTest, ADueOneTimeScheduleStartsAReadyRunThroughResume) {
  ASSERT_TRUE(engine_->schedules().start());
  auto run = run_of("talker", true);
  ASSERT_TRUE(engine_->schedules().set(run.id, spec(R"({"delay":"30m"})"), actor_));
  EXPECT_EQ(engine_->schedules().armed_count(), 1u);
  timers_->advance_to(t0 + 29 * minute);
  EXPECT_EQ(view_of(run.id).run.session_count, 0);
  timers_->advance_to(t0 + 30 * minute);
  auto done = settled(run.id);
  EXPECT_EQ(done.run.status, core::RunStatus::success);
  EXPECT_EQ(done.run.session_count, 1);
  EXPECT_FALSE(done.run.schedule);  // a one-time schedule is spent
  auto started = last_audit(run.id, "run.started");
  ASSERT_TRUE(started);
  EXPECT_EQ(started->actor, "schedule");
  auto fired = last_audit(run.id, "schedule.fired");
  ASSERT_TRUE(fired);
  EXPECT_EQ(fired->data.at("dueAt"), "2024-06-01T12:30:00.000Z");
  EXPECT_EQ(fired->data.at("startedRunId"), json::value(run.id));
  EXPECT_EQ(engine_->schedules().armed_count(), 0u);
}

TEST_F(ScheduleCommandsTest, SkipsAreAuditedWithTheirReason) {
  ASSERT_TRUE(engine_->schedules().start());
  auto initialized = run_of("talker", false);
  auto archived = run_of("talker", true);
  ASSERT_TRUE(engine_->archive(archived.id, actor_));
  auto passive = init_run(feature_request());
  ASSERT_TRUE(engine_->ready(passive.id, actor_));
  for (const auto& id : {initialized.id, archived.id, passive.id})
    ASSERT_TRUE(engine_->schedules().set(id, spec(R"({"delay":"1m"})"), actor_));
  timers_->advance_by(minute);
  auto code_of = [&](const std::string& id) {
    auto skipped = last_audit(id, "schedule.skipped");
    return skipped ? std::string(skipped->data.at("code").as_string()) : std::string("(not skipped)");
  };
  EXPECT_EQ(code_of(initialized.id), "not_ready");
  EXPECT_EQ(code_of(archived.id), "archived");
  EXPECT_EQ(code_of(passive.id), "passive");
  EXPECT_EQ(view_of(initialized.id).run.status, core::RunStatus::initialized);
  EXPECT_FALSE(schedule_of(initialized.id));  // spent either way
}

TEST_F(ScheduleCommandsTest, ARunWaitingOnADependencyIsSkippedAndNamesIt) {
  ASSERT_TRUE(engine_->schedules().start());
  auto first = run_of("talker", false);  // never started: the dependency stays unmet
  auto waiting = run_of("talker", false);
  ASSERT_TRUE(engine_->dependencies().add(waiting.id, core::Dependency{core::DependencyType::run, first.id, {}}, actor_));
  ASSERT_TRUE(engine_->ready(waiting.id, actor_));
  ASSERT_TRUE(engine_->schedules().set(waiting.id, spec(R"({"delay":"1m"})"), actor_));
  timers_->advance_by(minute);
  auto skipped = last_audit(waiting.id, "schedule.skipped");
  ASSERT_TRUE(skipped);
  EXPECT_EQ(skipped->data.at("code"), "dependencies_unmet");
  EXPECT_NE(std::string(skipped->data.at("reason").as_string()).find(first.id), std::string::npos);
  EXPECT_EQ(view_of(waiting.id).run.session_count, 0);
}

TEST_F(ScheduleCommandsTest, ARunningRunIsSkippedAndARecurrenceAdvances) {
  ASSERT_TRUE(engine_->schedules().start());
  auto run = run_of("gated", true);
  ASSERT_TRUE(engine_->schedules().set(run.id, spec(R"({"cron":"0 * * * *"})"), actor_));
  timers_->advance_to(t0 + hour);  // 13:00: starts, and waits at the gate
  EXPECT_TRUE(eventually([&] { return view_of(run.id).run.status == core::RunStatus::running; }));
  EXPECT_EQ(core::format_iso8601(*schedule_of(run.id)->next_ms), "2024-06-01T14:00:00.000Z");
  timers_->advance_to(t0 + 2 * hour);  // 14:00: still running
  auto skipped = last_audit(run.id, "schedule.skipped");
  ASSERT_TRUE(skipped);
  EXPECT_EQ(skipped->data.at("code"), "active");
  EXPECT_EQ(schedule_of(run.id)->last_outcome, "skipped");
  open_gate();
  EXPECT_EQ(settled(run.id).run.status, core::RunStatus::success);
  EXPECT_TRUE(live_runs_let_go());
  // Reuse: the next occurrence is a new session of the same run.
  timers_->advance_to(t0 + 3 * hour);
  EXPECT_TRUE(eventually([&] { return view_of(run.id).run.session_count == 2; }));
  open_gate();
  settled(run.id);
  EXPECT_EQ(schedule_of(run.id)->last_outcome, "started");
}

TEST_F(ScheduleCommandsTest, AFailedScheduledRunStopsTheNextOccurrenceUnlessContinueOnFailure) {
  ASSERT_TRUE(engine_->schedules().start());
  auto stop = run_of("failer", true);
  auto go_on = run_of("failer", true);
  ASSERT_TRUE(engine_->schedules().set(stop.id, spec(R"({"cron":"0 * * * *"})"), actor_));
  ASSERT_TRUE(engine_->schedules().set(go_on.id, spec(R"({"cron":"0 * * * *","continueOnFailure":true})"), actor_));
  timers_->advance_to(t0 + hour);
  EXPECT_NE(settled(stop.id).run.status, core::RunStatus::success);
  EXPECT_NE(settled(go_on.id).run.status, core::RunStatus::success);
  EXPECT_TRUE(live_runs_let_go());
  timers_->advance_to(t0 + 2 * hour);
  auto skipped = last_audit(stop.id, "schedule.skipped");
  ASSERT_TRUE(skipped);
  EXPECT_EQ(skipped->data.at("code"), "previous_failed");
  EXPECT_TRUE(eventually([&] { return view_of(go_on.id).run.session_count == 2; }));
  settled(go_on.id);
}

TEST_F(ScheduleCommandsTest, CloneStartsAFreshCopyAndResetStartsTheRunAnew) {
  ASSERT_TRUE(engine_->schedules().start());
  auto templ = run_of("talker", true);
  auto again = run_of("talker", true);
  ASSERT_TRUE(engine_->schedules().set(templ.id, spec(R"({"cron":"0 * * * *","mode":"clone"})"), actor_));
  ASSERT_TRUE(engine_->schedules().set(again.id, spec(R"({"cron":"0 * * * *","mode":"reset"})"), actor_));
  timers_->advance_to(t0 + hour);
  auto fired = last_audit(templ.id, "schedule.fired");
  ASSERT_TRUE(fired);
  const std::string copy(fired->data.at("startedRunId").as_string());
  EXPECT_NE(copy, templ.id);
  EXPECT_EQ(settled(copy).run.status, core::RunStatus::success);
  EXPECT_EQ(view_of(templ.id).run.status, core::RunStatus::ready);  // the template never runs
  EXPECT_EQ(view_of(copy).run.run_group_id, templ.run_group_id);
  EXPECT_EQ(audit_of(copy).front().data.at("clonedFrom"), json::value(templ.id));
  settled(again.id);
  EXPECT_TRUE(live_runs_let_go());
  timers_->advance_to(t0 + 2 * hour);
  EXPECT_TRUE(eventually([&] { return last_audit(again.id, "run.reset").has_value(); }));
  auto reset_done = settled(again.id);
  EXPECT_EQ(reset_done.run.session_count, 1);  // reset, then the first session again
  EXPECT_EQ(reset_done.run.status, core::RunStatus::success);
  auto second = last_audit(templ.id, "schedule.fired");
  EXPECT_NE(second->data.at("startedRunId"), json::value(copy));
  settled(std::string(second->data.at("startedRunId").as_string()));
}

TEST_F(ScheduleCommandsTest, OccurrencesMissedWhileStoppedAreRecordedNotStarted) {
  auto once = run_of("talker", true);
  auto hourly = run_of("talker", true);
  ASSERT_TRUE(engine_->schedules().set(once.id, spec(R"({"delay":"1m"})"), actor_));
  ASSERT_TRUE(engine_->schedules().set(hourly.id, spec(R"({"cron":"0 * * * *"})"), actor_));
  // The daemon is down from here until 17:30: five hourly occurrences and the one-time pass.
  restart();
  timers_->advance_to(t0 + 5 * hour + 30 * minute);
  auto armed = engine_->schedules().start();
  ASSERT_TRUE(armed);
  EXPECT_EQ(*armed, 1);
  auto missed_once = last_audit(once.id, "schedule.missed");
  ASSERT_TRUE(missed_once);
  EXPECT_EQ(missed_once->data.at("cleared"), true);
  EXPECT_FALSE(schedule_of(once.id));
  auto missed_hourly = last_audit(hourly.id, "schedule.missed");
  ASSERT_TRUE(missed_hourly);
  EXPECT_EQ(missed_hourly->data.at("dueAt"), "2024-06-01T13:00:00.000Z");
  // One record, no burst: the next occurrence is the one after now.
  EXPECT_EQ(core::format_iso8601(*schedule_of(hourly.id)->next_ms), "2024-06-01T18:00:00.000Z");
  EXPECT_EQ(schedule_of(hourly.id)->last_outcome, "missed");
  EXPECT_EQ(view_of(once.id).run.session_count, 0);
  EXPECT_EQ(view_of(hourly.id).run.session_count, 0);
  timers_->advance_to(t0 + 6 * hour);
  EXPECT_TRUE(eventually([&] { return view_of(hourly.id).run.session_count == 1; }));
  settled(hourly.id);
}

TEST_F(ScheduleCommandsTest, AnAssignmentsScheduleIsAppliedAtInit) {
  write_config("assignments/nightly/assignment.md", R"(---
schemaVersion: 1
message: "Nightly check."
schedule: {cron: "0 2 * * *", timezone: America/New_York, mode: reset}
---
Check.
)");
  write_config("assignments/broken/assignment.md", R"(---
schemaVersion: 1
message: "x"
schedule: {cron: "0 2 * *"}
---
x
)");
  InitRequest r;
  r.agent = "talker";
  r.assignment = "nightly";
  r.caller_cwd = work_dir_.string();
  auto view = engine_->init_view(r, actor_);
  ASSERT_TRUE(view) << view.error().message;
  ASSERT_TRUE(view->run.schedule);
  EXPECT_EQ(view->run.schedule->spec.mode, core::ScheduleMode::reset);
  EXPECT_EQ(core::format_iso8601(*schedule_of(view->run.id)->next_ms), "2024-06-02T06:00:00.000Z");
  EXPECT_EQ(last_audit(view->run.id, "schedule.set")->data.at("source"), "assignment");
  r.assignment = "broken";
  auto broken = engine_->init_view(r, actor_);
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().code, core::ErrorCode::validation);
  EXPECT_NE(broken.error().message.find("invalid schedule"), std::string::npos) << broken.error().message;
}

}  // namespace
}  // namespace agentry::engine::testing

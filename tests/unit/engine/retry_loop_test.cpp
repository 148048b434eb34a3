// The retry loop on a live backend (the mock): after each attempt the engine re-reads
// the run's tasks and ends the session, or makes another attempt with a nudge.
#include "live_run_fixture.hpp"

#include <algorithm>

namespace agentry::engine::testing {
namespace {

std::size_t count_kind(const std::vector<core::TimelineEvent>& events, const std::string& kind) {
  return static_cast<std::size_t>(
      std::count_if(events.begin(), events.end(), [&](const auto& e) { return e.kind == kind; }));
}

using RetryLoopTest = LiveRunTest;

TEST_F(RetryLoopTest, TasksCompletedDuringTheAttemptSucceedAfterOneAttempt) {
  auto run = start_feature("gated");
  EXPECT_EQ(view_of(run.id).run.status, core::RunStatus::running);
  set_task(run.id, "plan", "completed");
  set_task(run.id, "build", "completed");
  EXPECT_EQ(view_of(run.id).run.status, core::RunStatus::running) << "a live run ends with its attempt";
  open_gate();
  auto v = settled(run.id);
  EXPECT_EQ(v.run.status, core::RunStatus::success);
  EXPECT_EQ(v.run.status_reason, "all tasks completed");
  EXPECT_EQ(v.run.attempt_count, 1);
  ASSERT_EQ(v.sessions.size(), 1u);
  EXPECT_EQ(v.sessions[0].ended_by, "agent");
}

TEST_F(RetryLoopTest, IncompleteTasksExhaustTheBudgetWithNudges) {
  auto run = start_feature("talker");  // maxRetries 2 -> 3 attempts per session
  auto v = settled(run.id);
  EXPECT_EQ(v.run.status, core::RunStatus::exhausted);
  EXPECT_EQ(v.run.status_reason, "tasks still incomplete after 3 attempts: plan, build");
  EXPECT_EQ(v.run.attempt_count, 3);
  ASSERT_EQ(v.attempts.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(v.attempts[static_cast<std::size_t>(i)].number, i + 1);
    EXPECT_EQ(v.attempts[static_cast<std::size_t>(i)].session_index, 0);
    EXPECT_EQ(v.attempts[static_cast<std::size_t>(i)].index_in_session, i);
    EXPECT_EQ(v.attempts[static_cast<std::size_t>(i)].outcome, "success");
  }
  auto events = timeline_of(run.id);
  EXPECT_EQ(count_kind(events, "attempt.started"), 3u);
  EXPECT_EQ(count_kind(events, "attempt.finished"), 3u);
  EXPECT_EQ(count_kind(events, "run.finished"), 1u) << "only the session's end finishes the run";
  EXPECT_EQ(events.back().kind, "run.finished");
  // The retries carry the nudge, naming the incomplete tasks.
  int nudged = 0;
  for (const auto& e : events) {
    if (e.kind != "attempt.started" || !e.payload.contains("prompt")) continue;
    ++nudged;
    std::string prompt(e.payload.at("prompt").as_string());
    EXPECT_NE(prompt.find("plan (Plan dark mode) [pending]"), std::string::npos) << prompt;
    EXPECT_NE(prompt.find("build (Build it) [pending]"), std::string::npos) << prompt;
  }
  EXPECT_EQ(nudged, 2);
  // Timeline rows stay in order: every attempt's events sit between its start and finish.
  std::optional<int> current;
  for (const auto& e : events) {
    if (e.kind == "attempt.started") current = e.attempt_number;
    if (e.kind != "run.finished") {
      EXPECT_EQ(e.attempt_number, current) << e.kind;
    }
  }
}

TEST_F(RetryLoopTest, ARetryThatFinishesTheTasksSucceeds) {
  auto run = start_feature("gated");
  open_gate();  // attempt 1 ends with nothing done
  ASSERT_TRUE(eventually([&] { return view_of(run.id).attempts.size() == 2; }));
  auto mid = view_of(run.id);
  EXPECT_EQ(mid.run.status, core::RunStatus::running);
  EXPECT_EQ(mid.run.attempt_count, 2);
  EXPECT_TRUE(core::capabilities(core::facts_of(mid.run)).can_abort);
  set_task(run.id, "plan", "completed");
  set_task(run.id, "build", "completed");
  open_gate();
  auto v = settled(run.id);
  EXPECT_EQ(v.run.status, core::RunStatus::success);
  EXPECT_EQ(v.run.attempt_count, 2);
  EXPECT_EQ(v.sessions.size(), 1u);
}

TEST_F(RetryLoopTest, ABlockedTaskEndsTheSessionBlocked) {
  auto run = start_feature("gated");
  set_task(run.id, "plan", "completed");
  set_task(run.id, "build", "blocked");
  open_gate();
  auto v = settled(run.id);
  EXPECT_EQ(v.run.status, core::RunStatus::blocked);
  EXPECT_EQ(v.run.status_reason, "task build is blocked");
  EXPECT_EQ(v.run.attempt_count, 1);
}

TEST_F(RetryLoopTest, ARunWithoutTasksMakesOneAttempt) {
  auto ok = start_taskless("talker");
  auto v = settled(ok.id);
  EXPECT_EQ(v.run.status, core::RunStatus::success);
  EXPECT_EQ(v.run.attempt_count, 1);

  auto failed = start_taskless("failer");
  auto f = settled(failed.id);
  EXPECT_EQ(f.run.status, core::RunStatus::error);
  EXPECT_EQ(f.run.status_reason, "tests are red");
  EXPECT_EQ(f.run.attempt_count, 1);
}

TEST_F(RetryLoopTest, FailedAttemptsAreRetriedWhileTasksAreIncomplete) {
  auto run = start_feature("failer");
  auto v = settled(run.id);
  EXPECT_EQ(v.run.status, core::RunStatus::exhausted);
  EXPECT_EQ(v.run.attempt_count, 3);
  EXPECT_NE(v.run.status_reason.find("(last attempt: tests are red)"), std::string::npos) << v.run.status_reason;
  for (const auto& a : v.attempts) EXPECT_EQ(a.outcome, "error");
}

TEST_F(RetryLoopTest, AbortStopsTheLoop) {
  auto run = start_feature("gated");
  open_gate();
  ASSERT_TRUE(eventually([&] { return view_of(run.id).attempts.size() == 2; }));
  auto aborted = engine_->abort(run.id, "enough", actor_);
  ASSERT_TRUE(aborted.ok()) << aborted.error().message;
  auto v = settled(run.id);
  EXPECT_EQ(v.run.status, core::RunStatus::aborted);
  ASSERT_TRUE(eventually([&] { return engine_->live_run_count() == 0; }));
  EXPECT_EQ(v.run.attempt_count, 2);
  EXPECT_EQ(v.sessions.back().ended_by, "user");
  EXPECT_EQ(engine_->live_run_count(), 0u);
}

TEST_F(RetryLoopTest, AResumedSessionHasItsOwnBudget) {
  auto run = start_feature("talker");
  EXPECT_EQ(settled(run.id).run.status, core::RunStatus::exhausted);
  ResumeRequest again;
  again.message = "try harder";
  ASSERT_TRUE(engine_->resume(run.id, again, actor_).ok());
  auto v = settled(run.id);
  EXPECT_EQ(v.run.status, core::RunStatus::exhausted);
  EXPECT_EQ(v.run.attempt_count, 6);
  ASSERT_EQ(v.attempts.size(), 6u);
  EXPECT_EQ(v.attempts[3].number, 4);
  EXPECT_EQ(v.attempts[3].session_index, 1);
  EXPECT_EQ(v.attempts[3].index_in_session, 0);
  EXPECT_EQ(v.attempts[5].index_in_session, 2);
}

}  // namespace
}  // namespace agentry::engine::testing

// The retry loop's rules (engine/live/attempt_policy.hpp), one case each.
#include "engine/live/attempt_policy.hpp"

#include <gtest/gtest.h>

namespace agentry::engine {
namespace {

core::Task task(const std::string& id, core::TaskStatus status, const std::string& title = "") {
  core::Task t;
  t.id = id;
  t.title = title.empty() ? "Title of " + id : title;
  t.status = status;
  return t;
}

AttemptEnd reported(const std::string& outcome, const std::string& message = "") {
  AttemptEnd e;
  e.outcome = outcome;
  e.message = message;
  return e;
}

using TS = core::TaskStatus;
using RS = core::RunStatus;

TEST(AttemptPolicy, ARunWithoutTasksMakesOneAttempt) {
  auto ok = decide_after_attempt(reported("success"), {}, 1, 3);
  EXPECT_FALSE(ok.retry);
  EXPECT_EQ(ok.status, RS::success);
  EXPECT_EQ(ok.ended_by, "agent");
  auto failed = decide_after_attempt(reported("error", "tests are red"), {}, 1, 3);
  EXPECT_FALSE(failed.retry);
  EXPECT_EQ(failed.status, RS::error);
  EXPECT_EQ(failed.reason, "tests are red");
}

TEST(AttemptPolicy, AFailedTakeOverEndsTheRunWithoutARetry) {
  std::vector<core::Task> open = {task("a", TS::pending)};
  AttemptEnd lost = reported("error", "cannot connect to codex app-server");
  lost.adoption_failed = true;
  auto d = decide_after_attempt(lost, open, 1, 3);
  EXPECT_FALSE(d.retry) << "the work the restart left behind is gone: nothing to nudge";
  EXPECT_EQ(d.status, RS::error);
  EXPECT_EQ(d.ended_by, "restart");
  EXPECT_EQ(d.reason, "cannot connect to codex app-server");
  // The user's abort of a takeover decides over the takeover's failure.
  AttemptEnd aborted = reported("interrupted");
  aborted.adoption_failed = aborted.abort_requested = true;
  EXPECT_EQ(decide_after_attempt(aborted, open, 1, 3).status, RS::aborted);
  // An imported turn that succeeded is judged like any other attempt.
  AttemptEnd imported = reported("success");
  auto ok = decide_after_attempt(imported, {task("a", TS::completed)}, 1, 3);
  EXPECT_EQ(ok.status, RS::success);
}

TEST(AttemptPolicy, AllTasksCompletedIsSuccessEvenAfterAnError) {
  std::vector<core::Task> done = {task("a", TS::completed), task("b", TS::completed)};
  for (const char* outcome : {"success", "error"}) {
    auto d = decide_after_attempt(reported(outcome), done, 1, 3);
    EXPECT_FALSE(d.retry) << outcome;
    EXPECT_EQ(d.status, RS::success) << outcome;
    EXPECT_EQ(d.reason, "all tasks completed");
  }
}

TEST(AttemptPolicy, ABlockedTaskBlocksTheRunWhateverElse) {
  std::vector<core::Task> tasks = {task("a", TS::completed), task("b", TS::blocked), task("c", TS::pending)};
  auto d = decide_after_attempt(reported("success"), tasks, 1, 3);
  EXPECT_FALSE(d.retry);
  EXPECT_EQ(d.status, RS::blocked);
  EXPECT_NE(d.reason.find("b"), std::string::npos);
}

TEST(AttemptPolicy, IncompleteTasksAreRetriedWithANudgeWhileBudgetRemains) {
  std::vector<core::Task> tasks = {task("plan", TS::completed), task("build", TS::in_progress, "Build it"),
                                   task("review/check", TS::pending, "Review")};
  auto d = decide_after_attempt(reported("success"), tasks, 1, 3);
  ASSERT_TRUE(d.retry);
  EXPECT_EQ(d.incomplete_task_ids, (std::vector<std::string>{"build", "review/check"}));
  EXPECT_NE(d.nudge.find("These tasks are not complete yet"), std::string::npos) << d.nudge;
  EXPECT_NE(d.nudge.find("build (Build it) [in_progress]"), std::string::npos) << d.nudge;
  EXPECT_NE(d.nudge.find("review/check (Review) [pending]"), std::string::npos) << d.nudge;
  EXPECT_EQ(d.nudge.find("plan"), std::string::npos) << "completed tasks are not named";
  EXPECT_NE(d.nudge.find("attempt 2 of 3"), std::string::npos) << d.nudge;

  // An attempt that reported an error is a failed attempt: retried too, and told why.
  auto failed = decide_after_attempt(reported("error", "crashed"), tasks, 2, 3);
  ASSERT_TRUE(failed.retry);
  EXPECT_NE(failed.nudge.find("The previous attempt failed: crashed."), std::string::npos) << failed.nudge;
}

TEST(AttemptPolicy, TheLastAttemptWithIncompleteTasksIsExhausted) {
  std::vector<core::Task> tasks = {task("a", TS::pending), task("b", TS::completed)};
  auto d = decide_after_attempt(reported("success"), tasks, 3, 3);
  EXPECT_FALSE(d.retry);
  EXPECT_EQ(d.status, RS::exhausted);
  EXPECT_EQ(d.reason, "tasks still incomplete after 3 attempts: a");
  EXPECT_EQ(d.ended_by, "agent");
  // maxRetries 0: one attempt, then exhausted.
  EXPECT_EQ(decide_after_attempt(reported("success"), tasks, 1, 1).status, RS::exhausted);
}

TEST(AttemptPolicy, AUserAbortEndsAsAbortedWithoutRetry) {
  std::vector<core::Task> tasks = {task("a", TS::pending)};
  auto e = reported("interrupted", "stopped by request");
  e.abort_requested = true;
  auto d = decide_after_attempt(e, tasks, 1, 3);
  EXPECT_FALSE(d.retry);
  EXPECT_EQ(d.status, RS::aborted);
  EXPECT_EQ(d.ended_by, "user");
  // The attempt finished on its own just as the user aborted: no further attempt either.
  auto raced = reported("success");
  raced.abort_requested = true;
  auto r = decide_after_attempt(raced, tasks, 1, 3);
  EXPECT_FALSE(r.retry);
  EXPECT_EQ(r.status, RS::aborted);
}

TEST(AttemptPolicy, AShutdownEndsAsAbortedByShutdown) {
  auto e = reported("interrupted");
  e.shutdown_requested = true;
  auto d = decide_after_attempt(e, {task("a", TS::pending)}, 1, 3);
  EXPECT_FALSE(d.retry);
  EXPECT_EQ(d.status, RS::aborted);
  EXPECT_EQ(d.ended_by, "shutdown");
  EXPECT_EQ(d.reason, "agentry is shutting down");
}

TEST(AttemptPolicy, ATimeoutIsAnErrorWithoutRetry) {
  auto e = reported("interrupted");
  e.timeout_message = "timed out after 5 s";
  auto d = decide_after_attempt(e, {task("a", TS::pending)}, 1, 3);
  EXPECT_FALSE(d.retry);
  EXPECT_EQ(d.status, RS::error);
  EXPECT_EQ(d.reason, "timed out after 5 s");
}

TEST(AttemptPolicy, AnEndForcedByTheHostIsNotRetried) {
  auto e = reported("error", "backend 'x' refused to start");
  e.forced = true;
  auto d = decide_after_attempt(e, {task("a", TS::pending)}, 1, 3);
  EXPECT_FALSE(d.retry);
  EXPECT_EQ(d.status, RS::error);
  EXPECT_EQ(d.reason, "backend 'x' refused to start");
}

TEST(AttemptPolicy, AnInterruptNobodyAskedForIsAnError) {
  auto d = decide_after_attempt(reported("interrupted"), {task("a", TS::pending)}, 1, 3);
  EXPECT_FALSE(d.retry);
  EXPECT_EQ(d.status, RS::error);
  EXPECT_EQ(d.reason, "the agent was interrupted");
}

TEST(AttemptPolicy, AReinvokeRetriesWithItsPromptWhileBudgetRemainsThenIsExhausted) {
  // Even a run without tasks, or whose tasks are done: the hook asked for another attempt.
  auto again = decide_after_reinvoke(reported("success"), 1, 2, "one more pass");
  EXPECT_TRUE(again.retry);
  EXPECT_EQ(again.nudge, "one more pass");
  auto spent = decide_after_reinvoke(reported("success"), 2, 2, "one more pass");
  EXPECT_FALSE(spent.retry);
  EXPECT_EQ(spent.status, RS::exhausted);
  EXPECT_NE(spent.reason.find("reinvoke"), std::string::npos) << spent.reason;
  EXPECT_NE(spent.reason.find("2 attempts"), std::string::npos) << spent.reason;
  AttemptEnd stopped = reported("success");
  stopped.abort_requested = true;
  auto aborted = decide_after_reinvoke(stopped, 1, 3, "more");
  EXPECT_FALSE(aborted.retry);
  EXPECT_EQ(aborted.status, RS::aborted);
  EXPECT_EQ(aborted.ended_by, "user");
}

}  // namespace
}  // namespace agentry::engine

// run_mapping: an agent-runner manifest (with its audit records and attempt logs) into
// agentry's values, and the refusals of what agentry cannot hold, naming the field.
#include "store_import/agent_runner/run_mapping.hpp"

#include "core/clock.hpp"
#include "support/agent_runner_state.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace agentry::store_import::agent_runner {
namespace {
namespace json = boost::json;

json::object session(int index, const std::string& status, const json::value& ended_at) {
  return json::object{{"sessionIndex", index}, {"startedAt", "2026-05-01T10:01:00.000Z"}, {"endedAt", ended_at},
                      {"status", status}, {"message", "go"}, {"backendSessionIdAtEnd", nullptr}};
}

json::object attempt(int number, int session_index, const json::value& exit_code, bool timed_out = false) {
  return json::object{{"attemptNumber", number}, {"sessionIndex", session_index}, {"attemptIndexInSession", 0},
                      {"startedAt", "2026-05-01T10:01:00.000Z"}, {"endedAt", "2026-05-01T10:02:00.000Z"},
                      {"prompt", "p" + std::to_string(number)}, {"exitCode", exit_code}, {"signal", nullptr},
                      {"timedOut", timed_out}, {"transcript", "t" + std::to_string(number)}, {"logPath", "attempts/01.json"}};
}

core::Result<ImportedRun> map(const json::object& manifest, std::map<int, std::string> stderr_by_attempt = {}) {
  auto m = parse_manifest(json::serialize(manifest), "/state/runs/repo/" + std::string(manifest.at("runId").as_string()) + "/run.json");
  if (!m) return m.failure();
  RunSources s;
  s.run_dir = m->file.parent_path();
  s.manifest = std::move(*m);
  s.stderr_by_attempt = std::move(stderr_by_attempt);
  return map_run(s, core::parse_iso8601("2026-06-01T00:00:00.000Z").value());
}

std::string field_of(const core::Error& e) { return std::string(e.details.at("field").as_string()); }

TEST(AgentRunnerMapping, ARunningRunBecomesAnErrorWithItsSessionClosed) {
  auto m = test::agent_runner_manifest("r1", "running", "/work");
  m["backend"] = "codex";
  m["sessions"] = json::array{session(0, "running", nullptr)};
  m["attemptRecords"] = json::array{attempt(1, 0, 1, true)};
  auto run = map(m, {{1, "oops"}});
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(run->run.status, core::RunStatus::error);
  EXPECT_EQ(run->run.status_reason, imported_while_running);
  EXPECT_EQ(run->status_there, "running");
  ASSERT_EQ(run->sessions.size(), 1u);
  EXPECT_EQ(run->sessions[0].status, "error");
  EXPECT_EQ(run->sessions[0].ended_at, "2026-05-01T10:30:00.000Z");
  std::vector<std::string> kinds;
  for (const auto& e : run->timeline) kinds.push_back(e.kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"attempt.started", "message.completed", "notice", "attempt.finished", "run.finished"}));
  EXPECT_EQ(run->timeline[3].payload.at("message"), "timed out");
  EXPECT_EQ(run->attempts[0].outcome, "error");
  EXPECT_EQ(run->audit.back().type, "run.imported");
  EXPECT_EQ(run->audit.back().data.at("statusThere"), "running");
}

TEST(AgentRunnerMapping, BackendConfigKeyedByBackendIsTheBackendsOwn) {
  auto m = test::agent_runner_manifest("r1", "ready", "/work");
  m["backend"] = "claude";
  m["backendConfig"] = json::object{{"claude", {{"permissionMode", "plan"}}}};
  auto run = map(m);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(run->run.frozen.backend_config, (json::object{{"permissionMode", "plan"}}));
  m["backendConfig"] = json::object{{"permissionMode", "plan"}};
  run = map(m);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(run->run.frozen.backend_config, (json::object{{"permissionMode", "plan"}}));
}

TEST(AgentRunnerMapping, RefusesWhatAgentryCannotHoldNamingTheField) {
  auto m = test::agent_runner_manifest("bad id!", "ready", "/work");
  auto run = map(m);
  ASSERT_FALSE(run);
  EXPECT_EQ(field_of(run.error()), "runId");

  m = test::agent_runner_manifest("r1", "paused", "/work");
  run = map(m);
  ASSERT_FALSE(run);
  EXPECT_EQ(field_of(run.error()), "status");

  m = test::agent_runner_manifest("r1", "success", "/work");
  m["finalTasks"] = json::object{{"t", {{"id", "t"}, {"title", ""}, {"body", ""}, {"status", "done"}, {"notes", ""}}}};
  run = map(m);
  ASSERT_FALSE(run);
  EXPECT_EQ(field_of(run.error()), "finalTasks.t.status");

  m = test::agent_runner_manifest("r1", "success", "/work");
  m["sessions"] = json::array{session(0, "success", "2026-05-01T10:05:00.000Z")};
  m["attemptRecords"] = json::array{attempt(1, 3, 0)};
  run = map(m);
  ASSERT_FALSE(run);
  EXPECT_EQ(field_of(run.error()), "attemptRecords[0].sessionIndex");

  m = test::agent_runner_manifest("r1", "success", "/work");
  m["sessions"] = json::array{session(0, "success", nullptr)};
  run = map(m);
  ASSERT_FALSE(run);
  EXPECT_EQ(field_of(run.error()), "sessions[0].endedAt");

  m = test::agent_runner_manifest("r1", "ready", "/work");
  m["schedule"] = json::object{{"enabled", true}, {"runAt", "2030-01-01T00:00:00.000Z"},
                               {"recurrence", {{"schedule", {{"type", "cron"}, {"expression", "not cron"}, {"timezone", "UTC"}}},
                                               {"mode", "reuse"}, {"continueOnFailure", false}}}};
  run = map(m);
  ASSERT_FALSE(run);
  EXPECT_EQ(field_of(run.error()), "schedule.recurrence");

  m = test::agent_runner_manifest("r1", "ready", "/work");
  m["schedule"] = json::object{{"enabled", true}, {"runAt", "tomorrow"}, {"recurrence", nullptr}};
  run = map(m);
  ASSERT_FALSE(run);
  EXPECT_EQ(field_of(run.error()), "schedule.runAt");

  m = test::agent_runner_manifest("r1", "ready", "/work");
  m["parentCompletionNotifications"] = json::array{json::object{
      {"id", "n"}, {"parentRunId", "p"}, {"sessionIndex", 0}, {"status", "lost"}, {"createdAt", "t"},
      {"deliveredAt", nullptr}, {"deliveryReason", nullptr}, {"failureReason", nullptr}}};
  run = map(m);
  ASSERT_FALSE(run);
  EXPECT_EQ(field_of(run.error()), "parentCompletionNotifications[0].status");
}

TEST(AgentRunnerMapping, GroupIdsFollowAgentRunnersRuleAsWellAsOurs) {
  auto m = test::agent_runner_manifest("r1", "ready", "/work");
  m["runGroupId"] = "nightly builds";
  m["dependencies"] = json::array{json::object{{"type", "group"}, {"groupId", "feature/x"}}};
  auto run = map(m);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(run->run.run_group_id, "nightly builds");
  EXPECT_EQ(run->dependencies.at(0).target, "feature/x");
  for (const char* bad : {"a\\b", " padded", "tab\there", ""}) {
    m["runGroupId"] = bad;
    run = map(m);
    ASSERT_FALSE(run) << bad;
    EXPECT_EQ(field_of(run.error()), "runGroupId") << bad;
  }
}

TEST(AgentRunnerMapping, ParentNotificationsKeepTheirState) {
  auto m = test::agent_runner_manifest("r1", "success", "/work");
  auto note = [](const char* status, const json::value& reason) {
    return json::object{{"id", "n"}, {"parentRunId", "p"}, {"sessionIndex", 0}, {"status", status},
                        {"createdAt", "2026-05-01T10:00:00.000Z"}, {"deliveredAt", "2026-05-01T10:05:00.000Z"},
                        {"deliveryReason", reason}, {"failureReason", nullptr}};
  };
  m["parentCompletionNotifications"] = json::array{note("delivered_resumed", "parent_resumed"), note("skipped", "parent_not_found")};
  auto run = map(m);
  ASSERT_TRUE(run) << run.error().message;
  ASSERT_EQ(run->parent_notifications.size(), 2u);
  EXPECT_EQ(run->parent_notifications[0].state, "delivered");
  EXPECT_EQ(run->parent_notifications[0].delivery, "resumed");
  EXPECT_EQ(run->parent_notifications[1].state, "skipped");
  EXPECT_EQ(run->parent_notifications[1].reason, "parent_not_found");
  EXPECT_TRUE(run->run.frozen.notify_parent_on_complete);
}

TEST(AgentRunnerMapping, ASessionAChildsCompletionOpenedSaysSo) {
  auto m = test::agent_runner_manifest("r1", "success", "/work");
  auto opened = session(0, "success", "2026-05-01T10:05:00.000Z");
  opened["resumeSource"] = json::object{{"kind", "parent_completion_notification"}, {"childRunId", "kid"}, {"notificationId", "n-1"}};
  m["sessions"] = json::array{opened};
  auto run = map(m);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(run->sessions.at(0).source,
            (json::object{{"kind", "child_completion"}, {"childRunId", "kid"}, {"notificationId", "n-1"}}));
  EXPECT_EQ(run->sessions.at(0).ended_by, "agent");
}

}  // namespace
}  // namespace agentry::store_import::agent_runner

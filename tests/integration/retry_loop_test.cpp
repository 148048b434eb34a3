// The retry loop through the real daemon: mock agents that report progress on their
// tasks by calling the daemon's API (curl, with the AGENTRY_CONNECT and AGENTRY_RUN_ID
// the engine puts in their environment), or never do.
#include "daemon_fixture.hpp"

namespace agentry::integration {
namespace {
namespace json = boost::json;

class RetryLoopApiTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    write_agent("scripted", "mock", "{}");  // plays the prompt's "@mock" lines, echoes a prompt without
  }

  /// A shell command that sets task `task` (percent-encoded) of the agent's run to `status`.
  static std::string set_task(const std::string& task, const std::string& status) {
    return "curl -sf -X PATCH -H 'Content-Type: application/json' -d '{\"status\":\"" + status + "\"}' " +
           "\"$base/api/runs/$AGENTRY_RUN_ID/tasks/" + task + "\" > /dev/null";
  }

  /// A mock step that runs `commands` in a shell that has $base = the daemon's HTTP URL.
  static std::string exec_line(const std::string& commands) {
    const std::string script = "set -e; base=$(printf %s \"$AGENTRY_CONNECT\" | sed -e 's#^ws#http#' -e 's#/*$##'); " +
                               commands;
    return "@mock " + json::serialize(json::object{{"exec", json::array{"sh", "-c", script}}});
  }

  /// POST /api/runs for the "feature" assignment (tasks plan, build, review/check) on `agent`.
  std::string start_feature_run(const std::string& message, int max_retries) {
    json::object body{{"agent", "scripted"},
                      {"assignment", "feature"},
                      {"callerCwd", work_.string()},
                      {"cliVars", {{"feature", "retries"}}},
                      {"overrides", {{"message", message}, {"maxRetries", max_retries}}}};
    auto response = client().post_json("/api/runs", body);
    EXPECT_EQ(response.status, 201) << response.body;
    return response.status == 201 ? std::string(response.json().at("run").at("runId").as_string()) : "";
  }

  std::vector<json::object> of_kind(const std::string& run, const std::string& kind) {
    std::vector<json::object> out;
    for (auto& e : timeline(run))
      if (e.at("kind").as_string() == kind) out.push_back(e);
    return out;
  }
};

TEST_F(RetryLoopApiTest, AnAgentThatCompletesItsTasksSucceedsAfterOneAttempt) {
  auto run = start_feature_run(exec_line(set_task("plan", "completed") + " && " + set_task("build", "completed") +
                                         " && " + set_task("review%2Fcheck", "completed")),
                               2);
  EXPECT_EQ(wait_until_settled(run), "success");
  auto detail = get_run(run);
  EXPECT_EQ(detail.at("statusReason").as_string(), "all tasks completed");
  EXPECT_EQ(detail.at("totalAttemptCount").as_int64(), 1);
  EXPECT_EQ(detail.at("taskCounts").at("completed").as_int64(), 3);
  EXPECT_TRUE(detail.at("currentSession").is_null());
  // The task changes came from inside the run, through the API.
  auto audit = client().get("/api/runs/" + run + "/audit").json().at("events").as_array();
  int updates = 0;
  for (const auto& e : audit) updates += e.at("type") == "task.updated";
  EXPECT_EQ(updates, 3);
}

TEST_F(RetryLoopApiTest, AnAgentThatNeverFinishesIsExhaustedAfterItsRetries) {
  auto run = start_feature_run("@mock {\"say\": \"working\"}", 2);
  EXPECT_EQ(wait_until_settled(run), "exhausted");
  auto detail = get_run(run);
  EXPECT_EQ(detail.at("totalAttemptCount").as_int64(), 3);
  EXPECT_EQ(detail.at("maxAttemptsPerSession").as_int64(), 3);
  EXPECT_EQ(detail.at("totalSessionCount").as_int64(), 1);
  const auto& attempts = detail.at("sessions").at(0).at("attempts").as_array();
  ASSERT_EQ(attempts.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(attempts[i].at("attemptNumber").as_int64(), static_cast<std::int64_t>(i + 1));
    EXPECT_EQ(attempts[i].at("attemptIndexInSession").as_int64(), static_cast<std::int64_t>(i));
  }
  EXPECT_EQ(of_kind(run, "attempt.started").size(), 3u);
  EXPECT_EQ(of_kind(run, "attempt.finished").size(), 3u);
  EXPECT_EQ(of_kind(run, "run.finished").size(), 1u);
  // The nudge is the retry's prompt: on attempt.started, and (the mock echoes a prompt
  // without a script) in what the agent said.
  int nudges = 0;
  for (const auto& e : of_kind(run, "message.completed")) {
    std::string text(e.at("payload").at("text").as_string());
    if (text.find("These tasks are not complete yet") == std::string::npos) continue;
    ++nudges;
    EXPECT_NE(text.find("review/check (Review the change) [pending]"), std::string::npos) << text;
  }
  EXPECT_EQ(nudges, 2);
  auto started = of_kind(run, "attempt.started");
  EXPECT_FALSE(started[0].at("payload").as_object().contains("prompt"));
  EXPECT_TRUE(started[1].at("payload").at("prompt").is_string());
}

TEST_F(RetryLoopApiTest, AnAgentThatBlocksATaskEndsBlocked) {
  auto run = start_feature_run(exec_line(set_task("plan", "completed") + " && " + set_task("build", "blocked")), 2);
  EXPECT_EQ(wait_until_settled(run), "blocked");
  auto detail = get_run(run);
  EXPECT_EQ(detail.at("totalAttemptCount").as_int64(), 1);
  EXPECT_EQ(detail.at("statusReason").as_string(), "task build is blocked");
}

TEST_F(RetryLoopApiTest, ARunWithoutTasksMakesOneAttempt) {
  auto ok = start_agent_run("scripted", "@mock {\"say\": \"done\"}");
  EXPECT_EQ(wait_until_settled(ok), "success");
  EXPECT_EQ(get_run(ok).at("totalAttemptCount").as_int64(), 1);
  auto failed = start_agent_run("scripted", "@mock {\"fail\": \"no\"}");
  EXPECT_EQ(wait_until_settled(failed), "error");
  EXPECT_EQ(get_run(failed).at("totalAttemptCount").as_int64(), 1);
}

}  // namespace
}  // namespace agentry::integration

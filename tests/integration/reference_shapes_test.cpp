// A client written for the agent-runner reference works unchanged: its request shapes are
// accepted beside agentry's, and the answers carry what it reads (docs/api.md,
// "Differences from the agent-runner reference").
#include "daemon_fixture.hpp"

#include "support/ws_client.hpp"

namespace agentry::integration {
namespace {
namespace json = boost::json;

TEST_F(DaemonTest, ReferenceRequestShapesAreAccepted) {
  // webVars, and runId at the top level.
  auto created = client().post_json("/api/runs/init", json::object{{"agent", "worker"},
                                                                   {"assignment", "feature"},
                                                                   {"callerCwd", work_.string()},
                                                                   {"webVars", {{"feature", "search"}}}});
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string id(created.json().at("runId").as_string());
  EXPECT_EQ(created.json().at("run").at("runId").as_string(), id);
  EXPECT_EQ(created.json().at("run").at("vars").at("feature"), "search");
  auto both = client().post_json("/api/runs/init", json::object{{"agent", "worker"},
                                                                {"assignment", "feature"},
                                                                {"callerCwd", work_.string()},
                                                                {"webVars", {{"feature", "a"}}},
                                                                {"cliVars", {{"feature", "b"}}}});
  EXPECT_EQ(both.status, 400) << both.body;

  // resume {overrides: {message}}, then a queued message under the reference's name.
  auto resumed = client().post_json("/api/runs/" + id + "/resume", json::object{{"overrides", {{"message", "go on"}}}});
  ASSERT_EQ(resumed.status, 200) << resumed.body;
  EXPECT_EQ(resumed.json().at("runId").as_string(), id);
  EXPECT_NE(json::serialize(resumed.json().at("run").at("sessions")).find("go on"), std::string::npos);
  auto queued = client().post_json("/api/runs/" + id + "/queued-resume-messages", json::object{{"message", "later"}});
  ASSERT_EQ(queued.status, 201) << queued.body;
  EXPECT_EQ(queued.json().at("message").at("text"), "later");

  // abort answers {runId, accepted} beside run.
  auto aborted = client().post_json("/api/runs/" + id + "/abort", json::object{});
  ASSERT_EQ(aborted.status, 200) << aborted.body;
  EXPECT_EQ(aborted.json().at("runId").as_string(), id);
  EXPECT_TRUE(aborted.json().at("accepted").as_bool());

  // A refused transition is 422, as the reference answers known refusals.
  auto again = client().post_json("/api/runs/" + id + "/abort", json::object{});
  EXPECT_EQ(again.status, 422);
  EXPECT_EQ(error_code_of(again), "CONFLICT");

  // No scope: every run.
  auto listed = client().get("/api/runs");
  ASSERT_EQ(listed.status, 200) << listed.body;
  EXPECT_EQ(listed.json().at("runs").as_array().size(), 1u);
}

TEST_F(DaemonTest, WebSocketMethodsTakeTargetForTheRun) {
  auto id = create_run();
  test::WsClient ws("127.0.0.1", daemon_->port());
  auto got = ws.call("runs.get", json::object{{"target", id}});
  ASSERT_TRUE(got.contains("result")) << json::serialize(got);
  EXPECT_EQ(got.at("result").at("runId").as_string(), id);
  auto tasks = ws.call("tasks.list", json::object{{"target", id}});
  ASSERT_TRUE(tasks.contains("result")) << json::serialize(tasks);
  // Definitions keep target for the definition.
  auto agent = ws.call("agents.get", json::object{{"target", "worker"}});
  EXPECT_TRUE(agent.contains("result")) << json::serialize(agent);
}

TEST_F(DaemonTest, OverridesBackendConfigTakesTheKeyedFormOfAgentMd) {
  write_agent("open", "mock", "{steps: [{say: from the file}]}", "unlockedFields: [backendConfig]\n");
  auto keyed = client().post_json(
      "/api/runs", json::object{{"agent", "open"},
                                {"callerCwd", work_.string()},
                                {"overrides", {{"message", "x"}, {"backendConfig", {{"mock", {{"steps", json::array{{{"say", "keyed"}}}}}}}}}}});
  ASSERT_EQ(keyed.status, 201) << keyed.body;
  const std::string run(keyed.json().at("runId").as_string());
  EXPECT_EQ(wait_until_settled(run), "success");
  bool said = false;
  for (const auto& e : timeline(run)) said = said || (e.at("kind") == "message.completed" && e.at("payload").at("text") == "keyed");
  EXPECT_TRUE(said);
  // A key naming another backend is an error, never silently ignored.
  auto other = client().post_json(
      "/api/runs", json::object{{"agent", "open"},
                                {"callerCwd", work_.string()},
                                {"overrides", {{"message", "x"}, {"backendConfig", {{"subprocess", {{"command", json::array{"true"}}}}}}}}});
  EXPECT_EQ(other.status, 422) << other.body;
  EXPECT_NE(other.body.find("overrides.backendConfig.subprocess"), std::string::npos);
}

}  // namespace
}  // namespace agentry::integration

// The runs and tasks API over HTTP: create, list, transitions, tasks, history.
#include "daemon_fixture.hpp"

#include <filesystem>
#include <fstream>
#include <map>

namespace agentry::integration {
namespace {
namespace json = boost::json;

std::string post_status(test::HttpClient client, const std::string& target, const json::value& body = json::object{}) {
  auto response = client.post_json(target, body);
  EXPECT_EQ(response.status, 200) << target << ": " << response.body;
  return response.status == 200 ? std::string(response.json().at("run").at("status").as_string()) : "";
}

TEST_F(DaemonTest, InitReturnsTheDetailShape) {
  auto id = create_run();
  auto run = get_run(id);
  for (const char* key : {"runId", "status", "agent", "assignment", "backend", "cwd", "runGroupId", "taskCounts",
                          "capabilities", "tasks", "sessions", "brief", "vars", "createdAt", "updatedAt"})
    EXPECT_TRUE(run.contains(key)) << key;
  EXPECT_EQ(run.at("status").as_string(), "initialized");
  EXPECT_EQ(run.at("tasks").as_array().size(), 3u);
  EXPECT_EQ(run.at("message").as_string(), "Build dark mode.");
  EXPECT_TRUE(run.at("capabilities").at("canReconfigure").as_bool());
  EXPECT_FALSE(run.at("capabilities").at("canAbort").as_bool());
  EXPECT_FALSE(run.at("capabilities").at("abortReason").as_string().empty());
}

// init answers with what it wrote instead of reading the run back: the answer must be
// exactly what a read of the new run shows.
TEST_F(DaemonTest, InitAnswersWhatAReadOfTheRunShows) {
  json::object body{{"agent", "worker"}, {"assignment", "feature"}, {"callerCwd", work_.string()},
                    {"cliVars", {{"feature", "dark mode"}}}, {"name", "Dark mode"}};
  auto created = client().post_json("/api/runs/init", body);
  ASSERT_EQ(created.status, 201) << created.body;
  auto answer = created.json().as_object();
  auto read = client().get("/api/runs/" + std::string(answer.at("runId").as_string()));
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(json::serialize(answer), json::serialize(read.json()));
}

TEST_F(DaemonTest, PassiveRunGoesFromInitToSuccessThroughTasks) {
  auto id = create_run();
  EXPECT_EQ(post_status(client(), "/api/runs/" + id + "/ready"), "ready");
  EXPECT_EQ(post_status(client(), "/api/runs/" + id + "/resume"), "running");
  for (const char* task : {"plan", "build", "review%2Fcheck"}) {
    auto r = client().patch_json("/api/runs/" + id + "/tasks/" + task, json::object{{"status", "completed"}});
    ASSERT_EQ(r.status, 200) << r.body;
  }
  auto run = get_run(id);
  EXPECT_EQ(run.at("status").as_string(), "success");
  EXPECT_EQ(run.at("totalSessionCount").as_int64(), 1);
  EXPECT_EQ(run.at("sessions").at(0).at("status").as_string(), "success");

  EXPECT_EQ(post_status(client(), "/api/runs/" + id + "/resume", json::object{{"message", "one more thing"}}),
            "running");
  EXPECT_EQ(post_status(client(), "/api/runs/" + id + "/abort", json::object{{"reason", "enough"}}), "aborted");
  EXPECT_EQ(post_status(client(), "/api/runs/" + id + "/archive"), "aborted");
  EXPECT_TRUE(get_run(id).at("archived").as_bool());
  auto deleted = client().del("/api/runs/" + id);
  ASSERT_EQ(deleted.status, 200);
  EXPECT_TRUE(deleted.json().at("result").at("deleted").as_bool());
  EXPECT_EQ(client().get("/api/runs/" + id).status, 404);
}

TEST_F(DaemonTest, ResetReconfigureAndMetadata) {
  auto id = create_run("search", true);
  EXPECT_EQ(post_status(client(), "/api/runs/" + id + "/abort"), "aborted");
  EXPECT_EQ(post_status(client(), "/api/runs/" + id + "/reset"), "initialized");
  auto reconfigured = client().post_json("/api/runs/" + id + "/reconfigure",
                                         json::object{{"vars", {{"feature", "export"}}}});
  ASSERT_EQ(reconfigured.status, 200) << reconfigured.body;
  EXPECT_EQ(reconfigured.json().at("run").at("message").as_string(), "Build export.");

  ASSERT_EQ(client().post_json("/api/runs/" + id + "/name", json::object{{"name", "Export"}}).status, 200);
  ASSERT_EQ(client().post_json("/api/runs/" + id + "/note", json::object{{"note", "check CSV"}}).status, 200);
  ASSERT_EQ(client().post_json("/api/runs/" + id + "/group", json::object{{"runGroupId", "wave-1"}}).status, 200);
  auto run = get_run(id);
  EXPECT_EQ(run.at("name").as_string(), "Export");
  EXPECT_TRUE(run.at("notePresent").as_bool());
  EXPECT_EQ(run.at("runGroupId").as_string(), "wave-1");
  ASSERT_EQ(client().post_json("/api/runs/" + id + "/name", json::object{{"name", nullptr}}).status, 200);
  EXPECT_TRUE(get_run(id).at("name").is_null());

  auto group = client().get("/api/runs?runGroupId=wave-1").json();
  EXPECT_EQ(group.at("runs").as_array().size(), 1u);
  auto audit = client().get("/api/runs/" + id + "/audit?after=2&limit=3").json().as_object();
  EXPECT_EQ(audit.at("events").as_array().size(), 3u);
  EXPECT_EQ(audit.at("events").at(0).at("cursor").as_int64(), 3);
  EXPECT_EQ(audit.at("lastCursor").as_int64(), 5);
}

TEST_F(DaemonTest, GroupIdsMayBeAgentRunnersPrintableText) {
  // agent-runner's rule as well as ours: spaces and other printable characters, trimmed.
  auto body = json::object{{"agent", "worker"},
                           {"assignment", "feature"},
                           {"callerCwd", work_.string()},
                           {"cliVars", {{"feature", "groups"}}},
                           {"runGroupId", "  Release 2.0 (beta)  "}};
  auto created = client().post_json("/api/runs/init", body);
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string id(created.json().at("run").at("runId").as_string());
  EXPECT_EQ(get_run(id).at("runGroupId").as_string(), "Release 2.0 (beta)");
  auto listed = client().get("/api/runs?runGroupId=Release%202.0%20(beta)").json();
  ASSERT_EQ(listed.at("runs").as_array().size(), 1u) << json::serialize(listed);
  EXPECT_EQ(listed.at("runs").at(0).at("runId").as_string(), id);

  ASSERT_EQ(client().post_json("/api/runs/" + id + "/group", json::object{{"runGroupId", "wave 2"}}).status, 200);
  EXPECT_EQ(get_run(id).at("runGroupId").as_string(), "wave 2");
  auto dependency = client().post_json("/api/runs/" + create_run() + "/dependencies",
                                       json::object{{"type", "group"}, {"groupId", " wave 2"}});
  ASSERT_EQ(dependency.status, 200) << dependency.body;
  EXPECT_NE(dependency.body.find(R"("groupId":"wave 2")"), std::string::npos) << dependency.body;

  for (const char* bad : {"back\\slash", "line\nbreak", "   "}) {
    auto refused = client().post_json("/api/runs/" + id + "/group", json::object{{"runGroupId", bad}});
    EXPECT_EQ(refused.status, 400) << bad;
    EXPECT_EQ(refused.json().at("error").at("details").at("field").as_string(), "runGroupId") << refused.body;
  }
}

TEST_F(DaemonTest, TaskRoutes) {
  auto id = create_run();
  auto added = client().post_json("/api/runs/" + id + "/tasks", json::object{{"id", "docs"}, {"title", "Write docs"}});
  ASSERT_EQ(added.status, 201) << added.body;
  auto list = client().get("/api/runs/" + id + "/tasks").json();
  EXPECT_EQ(list.at("tasks").as_array().size(), 4u);
  auto notes = client().post_json("/api/runs/" + id + "/tasks/docs/append-notes", json::object{{"text", "started"}});
  ASSERT_EQ(notes.status, 200);
  EXPECT_EQ(notes.json().at("task").at("notes").as_string(), "started");
  auto task = client().get("/api/runs/" + id + "/tasks/review%2Fcheck");
  ASSERT_EQ(task.status, 200);
  EXPECT_EQ(task.json().at("task").at("title").as_string(), "Review the change");
  auto removed = client().del("/api/runs/" + id + "/tasks/docs");
  ASSERT_EQ(removed.status, 200);
  EXPECT_TRUE(removed.json().at("result").at("deleted").as_bool());
}

TEST_F(DaemonTest, ListingIsScopedAndPaged) {
  std::vector<std::string> created;
  for (int i = 0; i < 45; ++i) created.push_back(create_run("f" + std::to_string(i)));
  ASSERT_EQ(client().post_json("/api/runs/" + created[0] + "/archive", json::object{}).status, 200);

  auto ids = all_run_ids(20);
  EXPECT_EQ(ids.size(), 45u);
  std::set<std::string> unique(ids.begin(), ids.end());
  EXPECT_EQ(unique.size(), 45u);
  EXPECT_EQ(ids.front(), created.back());  // newest first

  auto visible = client().get("/api/runs?global=true&limit=500").json();
  EXPECT_EQ(visible.at("runs").as_array().size(), 44u);
  auto by_cwd = client().get("/api/runs?cwd=" + work_.string() + "&limit=500").json();
  EXPECT_EQ(by_cwd.at("runs").as_array().size(), 44u);
  auto elsewhere = client().get("/api/runs?cwd=/nonexistent").json();
  EXPECT_EQ(elsewhere.at("runs").as_array().size(), 0u);
  auto summary = visible.at("runs").at(0).as_object();
  EXPECT_TRUE(summary.contains("capabilities"));
  EXPECT_FALSE(summary.contains("tasks"));  // summaries stay small
}

TEST_F(DaemonTest, TheDaemonRefusesRunsNestedDeeperThanMaxCallDepth) {
  start_daemon({{"AGENTRY_MAX_CALL_DEPTH", "2"}});
  const std::string top = create_run("top");
  json::object body{{"agent", "worker"},
                    {"assignment", "feature"},
                    {"callerCwd", work_.string()},
                    {"parentRunId", top},
                    {"cliVars", {{"feature", "child"}}}};
  auto child = client().post_json("/api/runs/init", body);
  ASSERT_EQ(child.status, 201) << child.body;
  body["parentRunId"] = child.json().at("run").at("runId");
  for (const char* route : {"/api/runs/init", "/api/runs"}) {
    auto refused = client().post_json(route, body);
    EXPECT_EQ(refused.status, 422) << refused.body;
    EXPECT_EQ(error_code_of(refused), "VALIDATION_FAILED");
    EXPECT_NE(refused.body.find("nested 3 deep"), std::string::npos) << refused.body;
    EXPECT_EQ(refused.json().at("error").at("details").at("maxCallDepth").as_int64(), 2);
  }
  EXPECT_EQ(all_run_ids().size(), 2u);
}

TEST_F(DaemonTest, AgentsGetAgentRunnersVariablesBesideOurs) {
  start_daemon({{"AGENTRY_MAX_CALL_DEPTH", "5"}});
  write_agent("scripted", "mock", "{}");
  // The agent writes its environment where the test reads it (one file per run).
  const std::string dump = "@mock " + json::serialize(json::object{
      {"exec", json::array{"sh", "-c", "env > \"" + work_.string() + "/env-$AGENTRY_RUN_ID.txt\""}}});
  const std::string parent = start_agent_run("scripted", dump);
  ASSERT_EQ(wait_until_settled(parent), "success");
  json::object body{{"agent", "scripted"},
                    {"callerCwd", work_.string()},
                    {"parentRunId", parent},
                    {"overrides", {{"message", dump}}}};
  auto created = client().post_json("/api/runs", body);
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string child(created.json().at("run").at("runId").as_string());
  ASSERT_EQ(wait_until_settled(child), "success");
  const std::string group(get_run(parent).at("runGroupId").as_string());

  auto read = [&](const std::string& run) {
    std::ifstream in(work_ / ("env-" + run + ".txt"));
    std::map<std::string, std::string> vars;
    for (std::string line; std::getline(in, line);)
      if (auto eq = line.find('='); eq != std::string::npos) vars[line.substr(0, eq)] = line.substr(eq + 1);
    return vars;
  };
  auto top = read(parent);
  EXPECT_EQ(top["AGENT_RUNNER_RUN_ID"], parent);
  EXPECT_EQ(top["AGENT_RUNNER_PARENT_RUN_ID"], parent) << "the parent of whatever the agent starts";
  EXPECT_EQ(top["AGENT_RUNNER_RUN_GROUP_ID"], group);
  EXPECT_EQ(top["AGENT_RUNNER_CWD"], work_.string());
  EXPECT_EQ(top["AGENT_RUNNER_CALL_DEPTH"], "1");
  EXPECT_EQ(top["AGENT_RUNNER_MAX_CALL_DEPTH"], "5");
  EXPECT_EQ(top["AGENTRY_PARENT_RUN_ID"], "") << "ours names the run's own parent";
  // agent-runner's command: the link the build puts beside agentry (docs/agent-runner.md).
  EXPECT_EQ(top["AGENT_RUNNER_CMD"],
            (std::filesystem::canonical(test::DaemonProcess::binary_path()).parent_path() / "agent-runner").string());
  auto nested = read(child);
  EXPECT_EQ(nested["AGENT_RUNNER_RUN_ID"], child);
  EXPECT_EQ(nested["AGENT_RUNNER_PARENT_RUN_ID"], child);
  EXPECT_EQ(nested["AGENT_RUNNER_RUN_GROUP_ID"], group) << "a child joins its parent's group";
  EXPECT_EQ(nested["AGENT_RUNNER_CALL_DEPTH"], "2");
  EXPECT_EQ(nested["AGENTRY_CALL_DEPTH"], "2");
  EXPECT_EQ(nested["AGENTRY_PARENT_RUN_ID"], parent);
}

}  // namespace
}  // namespace agentry::integration

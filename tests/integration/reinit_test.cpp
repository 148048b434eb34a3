// Re-initializing an initialized run (runs.init with runId, POST /api/runs/init): its
// definitions read again as they are now, while its place (id, group, parent,
// dependencies, attachments, creation time) stays; refused once the run has moved on.
#include "daemon_fixture.hpp"

#include <algorithm>

namespace agentry::integration {
namespace {
namespace json = boost::json;

class ReinitTest : public DaemonTest {
 protected:
  test::HttpResponse reinit(const std::string& id, json::object body = {}) {
    body["runId"] = id;
    return client().post_json("/api/runs/init", body);
  }
  /// The feature assignment as edited after its runs were initialized: a new message
  /// and a third task of its own.
  void edit_feature_assignment() {
    write_assignment("feature", R"(message: "Ship {{feature}} today."
vars:
  feature:
    type: string
    required: true
tasks:
  - id: plan
    title: Plan {{feature}}
  - id: build
    title: Build it
  - id: docs
    title: Document {{feature}}
)");
  }
  std::vector<std::string> audit_types(const std::string& id) {
    auto r = client().get("/api/runs/" + id + "/audit?limit=100");
    EXPECT_EQ(r.status, 200) << r.body;
    std::vector<std::string> types;
    const auto body = r.json();
    for (const auto& e : body.at("events").as_array()) types.emplace_back(e.at("type").as_string());
    return types;
  }
};

TEST_F(ReinitTest, ReadsTheEditedAssignmentAndKeepsTheRunsPlace) {
  const auto parent = create_run("parent");
  const auto other = create_run("other");
  json::object body{{"agent", "worker"},          {"assignment", "feature"}, {"callerCwd", work_.string()},
                    {"cliVars", {{"feature", "dark mode"}}}, {"parentRunId", parent}, {"runGroupId", "wave-1"},
                    {"name", "Dark"}};
  auto created = client().post_json("/api/runs/init", body);
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string id(created.json().at("runId").as_string());
  auto dep = client().post_json("/api/runs/" + id + "/dependencies", json::object{{"type", "run"}, {"runId", other}});
  ASSERT_EQ(dep.status, 200) << dep.body;
  auto attached = client().post("/api/runs/" + id + "/attachments", "notes", {{"X-Agentry-Attachment-Name", "notes.txt"}},
                                 "text/plain");
  ASSERT_LT(attached.status, 300) << attached.body;
  const auto before = get_run(id);
  ASSERT_EQ(before.at("tasks").as_array().size(), 3u);

  edit_feature_assignment();
  auto answer = reinit(id, {{"cliVars", {{"feature", "search"}}}});
  ASSERT_EQ(answer.status, 200) << answer.body;
  const auto run = answer.json().at("run").as_object();
  EXPECT_EQ(run.at("runId"), json::value(id));
  EXPECT_EQ(run.at("status"), "initialized");
  EXPECT_EQ(run.at("message"), "Ship search today.");
  const auto& tasks = run.at("tasks").as_array();
  ASSERT_EQ(tasks.size(), 3u) << json::serialize(tasks);
  EXPECT_EQ(tasks.at(0).at("title"), "Plan search");
  EXPECT_EQ(tasks.at(2).at("id"), "docs");
  EXPECT_EQ(tasks.at(2).at("title"), "Document search");
  // What it keeps.
  for (const char* key : {"runGroupId", "parentRunId", "createdAt", "name", "cwd", "agent", "assignment"})
    EXPECT_EQ(run.at(key), before.at(key)) << key;
  ASSERT_EQ(run.at("dependencies").as_array().size(), 1u);
  EXPECT_EQ(run.at("dependencies").at(0).at("runId"), json::value(other));
  ASSERT_EQ(run.at("attachments").as_array().size(), 1u);
  EXPECT_EQ(run.at("attachments").at(0).at("name"), "notes.txt");
  // The answer is what a read shows; the change is audited.
  EXPECT_EQ(json::serialize(get_run(id)), json::serialize(run));
  auto types = audit_types(id);
  EXPECT_NE(std::find(types.begin(), types.end(), "run.reinitialized"), types.end());

  // Only one run is re-initialized: the parent keeps its old tasks.
  EXPECT_EQ(get_run(parent).at("tasks").as_array().size(), 3u);
  EXPECT_EQ(get_run(parent).at("message"), "Build parent.");
}

TEST_F(ReinitTest, ARunThatMovedOnOrDoesNotExistIsRefused) {
  const auto id = create_run("dark mode");
  auto missing = reinit("r_nosuchrun1");
  EXPECT_EQ(missing.status, 404) << missing.body;
  EXPECT_EQ(error_code_of(missing), "NOT_FOUND");

  // What it keeps cannot be asked to change.
  auto moved = reinit(id, {{"runGroupId", "elsewhere"}});
  EXPECT_EQ(moved.status, 422) << moved.body;
  EXPECT_NE(moved.body.find("runGroupId"), std::string::npos) << moved.body;
  // runs.start makes new runs only.
  auto start = client().post_json("/api/runs", json::object{{"runId", id}, {"agent", "worker"}});
  EXPECT_EQ(start.status, 400) << start.body;
  EXPECT_NE(start.body.find("runId"), std::string::npos) << start.body;

  ASSERT_EQ(client().post_json("/api/runs/" + id + "/ready", json::object{}).status, 200);
  auto ready = reinit(id);
  EXPECT_EQ(ready.status, 422) << ready.body;
  EXPECT_EQ(error_code_of(ready), "CONFLICT");
  EXPECT_NE(ready.body.find("this run is ready"), std::string::npos) << ready.body;

  // A run that has run and ended.
  write_agent("talker", "mock", "{steps: [{say: done}]}");
  const auto ended = start_agent_run("talker");
  ASSERT_EQ(wait_until_settled(ended), "success");
  auto after_end = reinit(ended);
  EXPECT_EQ(after_end.status, 422) << after_end.body;
  EXPECT_NE(after_end.body.find("this run is success"), std::string::npos) << after_end.body;
  EXPECT_EQ(get_run(ended).at("status"), "success");
}

}  // namespace
}  // namespace agentry::integration

#include "definitions/json.hpp"

#include "test_support.hpp"

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

namespace agentry::definitions {
namespace {

using testing::fake_env;
using testing::TempDir;

class DefinitionJson : public ::testing::Test {
 protected:
  void SetUp() override {
    dir.write("config/agents/planner/agent.md", R"(---
schemaVersion: 1
description: Plans
backend: passive
backendArgs: {codex: {extraArgs: [--x]}}
---
Role text
)");
    dir.write("config/assignments/ship/assignment.md", R"(---
schemaVersion: 1
description: Ship it
vars: {target: {type: string, required: true}}
tasks: [{id: plan}, review/check]
---
Instructions
)");
    dir.write("config/tasks/review/check.md", "---\nschemaVersion: 1\ntitle: Check\n---\nLook.\n");
    dir.write("config/launchers/nice.yaml", "schemaVersion: 1\ncommand: [nice, -n, \"10\"]\nenv: {A: b}\n");
    dir.write("config/launchers/broken.yaml", "schemaVersion: 1\n");
  }
  Roots roots() const { return Roots{dir.path() / "config", std::nullopt, fake_env()}; }
  TempDir dir;
};

TEST_F(DefinitionJson, AgentDetailHasEveryField) {
  const auto json = to_detail_json(*load_agent(roots(), "planner"));
  EXPECT_EQ(json.at("kind").as_string(), "agent");
  EXPECT_EQ(json.at("sourcePath").as_string(), (dir.path() / "config/agents/planner/agent.md").string());
  const auto& agent = json.at("agent").as_object();
  EXPECT_EQ(agent.at("name").as_string(), "planner");
  EXPECT_EQ(agent.at("backend").as_string(), "passive");
  EXPECT_TRUE(agent.at("model").is_null());
  EXPECT_EQ(agent.at("timeoutSec").as_int64(), 3600);  // the default when the file sets none
  EXPECT_EQ(agent.at("unrestricted").as_bool(), true);
  EXPECT_EQ(boost::json::serialize(agent.at("backendArgs")), R"({"codex":{"extraArgs":["--x"]}})");
  EXPECT_EQ(agent.at("instructions").as_string(), "Role text");
  for (const char* key : {"description", "effort", "backendConfig", "lockedFields", "launcher"}) {
    EXPECT_TRUE(agent.contains(key)) << key;
  }
}

TEST_F(DefinitionJson, AssignmentDetailResolvesTasksAndVars) {
  const auto json = to_detail_json(*load_assignment(roots(), "ship"));
  EXPECT_EQ(json.at("kind").as_string(), "assignment");
  const auto& assignment = json.at("assignment").as_object();
  EXPECT_EQ(assignment.at("maxRetries").as_int64(), 3);
  EXPECT_EQ(assignment.at("vars").at("target").at("required").as_bool(), true);
  EXPECT_EQ(assignment.at("tasks").at(1).at("source").as_string(), "definition:review/check");
  EXPECT_EQ(assignment.at("instructions").as_string(), "Instructions");
  for (const char* key : {"cwd", "message", "schedule", "callerInstructions", "lockedFields"}) {
    EXPECT_TRUE(assignment.contains(key)) << key;
  }
}

TEST_F(DefinitionJson, TaskDetailHasTheTaskShape) {
  const auto json = to_detail_json(*load_task_definition(roots(), "review/check"));
  EXPECT_EQ(json.at("kind").as_string(), "task");
  EXPECT_EQ(boost::json::serialize(json.at("task")),
            R"({"id":"review/check","title":"Check","body":"Look.","hooks":[]})");
  EXPECT_TRUE(json.contains("sourcePath"));
}

TEST_F(DefinitionJson, LauncherDetail) {
  const auto json = to_detail_json(*load_launcher(roots(), "nice"));
  EXPECT_EQ(boost::json::serialize(json.at("launcher")),
            R"({"name":"nice","description":"","command":["nice","-n","10"],"env":{"A":"b"}})");
}

TEST_F(DefinitionJson, ListResultsCarryEntriesAndWarnings) {
  const auto launchers = to_json(list_launchers(roots()));
  EXPECT_EQ(launchers.at("kind").as_string(), "launcher");
  ASSERT_EQ(launchers.at("entries").as_array().size(), 1u);
  EXPECT_EQ(launchers.at("entries").at(0).at("name").as_string(), "nice");
  const auto& warning = launchers.at("warnings").at(0).as_object();
  EXPECT_EQ(warning.at("field").as_string(), "command");
  EXPECT_NE(std::string(warning.at("path").as_string()).find("broken.yaml"), std::string::npos);

  const auto agents = to_json(list_agents(roots()));
  const auto& entry = agents.at("entries").at(0).as_object();
  EXPECT_EQ(entry.at("backend").as_string(), "passive");
  EXPECT_EQ(entry.at("description").as_string(), "Plans");

  const auto tasks = to_json(list_task_definitions(roots()));
  EXPECT_EQ(tasks.at("kind").as_string(), "task");
  EXPECT_EQ(tasks.at("entries").at(0).at("name").as_string(), "review/check");

  const auto assignments = to_json(list_assignments(roots()));
  EXPECT_EQ(assignments.at("entries").at(0).at("taskCount").as_int64(), 2);
}

}  // namespace
}  // namespace agentry::definitions

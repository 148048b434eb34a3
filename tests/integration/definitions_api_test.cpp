// Definition routes read the config directory (and a project's .agentry/).
#include "daemon_fixture.hpp"

namespace agentry::integration {
namespace {

TEST_F(DaemonTest, ListsDefinitionsWithWarningsForBrokenFiles) {
  auto agents = client().get("/api/agents");
  ASSERT_EQ(agents.status, 200);
  auto list = agents.json().at("agents").as_object();
  EXPECT_EQ(list.at("kind").as_string(), "agent");
  ASSERT_EQ(list.at("entries").as_array().size(), 1u);
  EXPECT_EQ(list.at("entries").at(0).at("name").as_string(), "worker");
  ASSERT_FALSE(list.at("warnings").as_array().empty());
  EXPECT_NE(std::string(list.at("warnings").at(0).at("path").as_string()).find("broken"), std::string::npos);
}

TEST_F(DaemonTest, ReadsOneDefinitionOfEachKind) {
  auto agent = client().get("/api/agents/worker");
  ASSERT_EQ(agent.status, 200);
  EXPECT_EQ(agent.json().at("agent").at("agent").at("backend").as_string(), "passive");
  auto assignment = client().get("/api/assignments/feature");
  ASSERT_EQ(assignment.status, 200);
  EXPECT_EQ(assignment.json().at("assignment").at("kind").as_string(), "assignment");
  auto task = client().get("/api/task-definitions/review%2Fcheck");
  ASSERT_EQ(task.status, 200) << task.body;
  EXPECT_EQ(task.json().at("taskDefinition").at("task").at("title").as_string(), "Review the change");
  EXPECT_EQ(client().get("/api/launchers").status, 200);
}

TEST_F(DaemonTest, DefinitionErrorsNameTheProblem) {
  auto missing = client().get("/api/agents/ghost");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(error_code_of(missing), "NOT_FOUND");
  auto broken = client().get("/api/agents/broken");
  EXPECT_EQ(broken.status, 422);
  EXPECT_NE(broken.body.find("schemaVersion"), std::string::npos);
  EXPECT_EQ(client().get("/api/agents?cwd=relative").status, 400);
}

TEST_F(DaemonTest, ATrustedProjectsDefinitionsWinOverTheConfigDir) {
  dir_.write_file("project/.agentry/agents/worker/agent.md",
                  "---\nschemaVersion: 1\nbackend: passive\nmodel: project-model\n---\nProject worker.\n");
  const std::string project = (dir_.path() / "project").string();
  auto untrusted = client().get("/api/agents/worker?cwd=" + project);
  ASSERT_EQ(untrusted.status, 200) << untrusted.body;
  EXPECT_NE(untrusted.json().at("agent").at("agent").at("model"), "project-model") << "the user's worker wins";
  ASSERT_EQ(client().post_json("/api/projects/trust", boost::json::object{{"dir", project}}).status, 200);
  auto agent = client().get("/api/agents/worker?cwd=" + project);
  ASSERT_EQ(agent.status, 200) << agent.body;
  EXPECT_EQ(agent.json().at("agent").at("agent").at("model").as_string(), "project-model");
}

}  // namespace
}  // namespace agentry::integration

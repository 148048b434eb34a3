#include "definitions/loader.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

namespace agentry::definitions {
namespace {

using testing::fake_env;
using testing::has_problem;
using testing::TempDir;

const char* const valid_agent = "---\nschemaVersion: 1\nbackend: passive\n---\n";

class Listing : public ::testing::Test {
 protected:
  // A trusted project: listings as they were before trust (project_trust_test.cpp has
  // the untrusted ones).
  Roots roots() const {
    Roots r{dir.path() / "config", dir.path() / "project", fake_env()};
    r.project_trusted = true;
    return r;
  }
  template <class T>
  static std::vector<std::string> names(const ListResult<T>& list) {
    std::vector<std::string> out;
    for (const auto& entry : list.entries) {
      if constexpr (requires { entry.name; }) {
        out.push_back(entry.name);
      } else {
        out.push_back(entry.id);
      }
    }
    return out;
  }
  TempDir dir;
};

TEST_F(Listing, AgentsAreSortedAndProjectWins) {
  dir.write("config/agents/zeta/agent.md", valid_agent);
  dir.write("config/agents/alpha/agent.md", "---\nschemaVersion: 1\nbackend: passive\ndescription: global\n---\n");
  dir.write("project/.agentry/agents/alpha/agent.md",
            "---\nschemaVersion: 1\nbackend: passive\ndescription: local\n---\n");
  dir.write("project/.agentry/agents/mid/agent.md", valid_agent);
  const auto list = list_agents(roots());
  EXPECT_EQ(names(list), (std::vector<std::string>{"alpha", "mid", "zeta"}));
  EXPECT_EQ(list.entries[0].description, "local");
  EXPECT_TRUE(list.warnings.empty()) << testing::dump(list.warnings);
}

TEST_F(Listing, BrokenFilesBecomeWarnings) {
  dir.write("config/agents/good/agent.md", valid_agent);
  dir.write("config/agents/broken/agent.md", "---\nschemaVersion: 1\n---\n");
  dir.write("config/agents/renamed/agent.md", "---\nschemaVersion: 1\nname: other\nbackend: passive\n---\n");
  dir.write("config/agents/typo/agent.md", "---\nschemaVersion: 1\nbackend: passive\nbakend: x\n---\n");
  std::filesystem::create_directories(dir.path() / "config/agents/empty-dir");
  dir.write("config/agents/bad name/agent.md", valid_agent);
  const auto list = list_agents(roots());
  EXPECT_EQ(names(list), (std::vector<std::string>{"good", "typo"}));
  EXPECT_TRUE(has_problem(list.warnings, "agents/broken/agent.md", "backend", "is required")) << testing::dump(list.warnings);
  EXPECT_TRUE(has_problem(list.warnings, "agents/renamed/agent.md", "name", "skipped"));
  EXPECT_TRUE(has_problem(list.warnings, "agents/typo/agent.md", "bakend", "unknown field"));
  EXPECT_TRUE(has_problem(list.warnings, "agents/empty-dir", "", "no agent.md"));
  EXPECT_TRUE(has_problem(list.warnings, "agents/bad name/agent.md", "", "not a valid agent name"));
}

TEST_F(Listing, BrokenProjectFileDoesNotFallBackToTheConfigFile) {
  dir.write("config/agents/a/agent.md", valid_agent);
  dir.write("project/.agentry/agents/a/agent.md", "---\nschemaVersion: 1\n---\n");
  const auto list = list_agents(roots());
  EXPECT_TRUE(list.entries.empty());
  EXPECT_TRUE(has_problem(list.warnings, ".agentry/agents/a/agent.md", "backend", "is required"));
  EXPECT_FALSE(load_agent(roots(), "a").ok());
}

TEST_F(Listing, MissingDirectoriesListNothing) {
  EXPECT_TRUE(list_agents(roots()).entries.empty());
  EXPECT_TRUE(list_assignments(roots()).warnings.empty());
  EXPECT_TRUE(list_launchers(Roots{dir.path() / "nowhere", std::nullopt, fake_env()}).entries.empty());
}

TEST_F(Listing, TaskDefinitionsAreFoundRecursively) {
  dir.write("config/tasks/review/check.md", "---\nschemaVersion: 1\n---\n");
  dir.write("config/tasks/review/deep/more.md", "---\nschemaVersion: 1\n---\n");
  dir.write("config/tasks/build.md", "---\nschemaVersion: 1\n---\n");
  dir.write("config/tasks/notes.txt", "not a task");
  const auto list = list_task_definitions(roots());
  EXPECT_EQ(names(list), (std::vector<std::string>{"build", "review/check", "review/deep/more"}));
  EXPECT_TRUE(list.warnings.empty()) << testing::dump(list.warnings);
}

TEST_F(Listing, LaunchersAndAssignments) {
  dir.write("config/launchers/nice.yaml", "schemaVersion: 1\ncommand: [nice]\n");
  dir.write("config/launchers/README.md", "ignored");
  dir.write("config/launchers/broken.yaml", "schemaVersion: 1\n");
  dir.write("config/assignments/ship/assignment.md", "---\nschemaVersion: 1\n---\n");
  const auto launchers = list_launchers(roots());
  EXPECT_EQ(names(launchers), std::vector<std::string>{"nice"});
  EXPECT_TRUE(has_problem(launchers.warnings, "launchers/broken.yaml", "command", "is required"));
  EXPECT_EQ(names(list_assignments(roots())), std::vector<std::string>{"ship"});
}

}  // namespace
}  // namespace agentry::definitions

// agent-runner's dialect of definition files (definitions/dialect.hpp): a file written
// for agent-runner (a top-level name:, nothing of agentry's own) or any file under
// AGENTRY_DEFINITIONS_DIALECT=agent-runner keeps agent-runner's effort levels, and is
// told which variable a var read from the environment now comes from. agentry's own
// files keep their freedom.

#include "definitions/loader.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

namespace agentry::definitions {
namespace {

using testing::fake_env;
using testing::has_problem;
using testing::problems_of;
using testing::TempDir;

class Dialect : public ::testing::Test {
 protected:
  Roots roots() const { return Roots{dir.path() / "config", std::nullopt, fake_env(env)}; }
  void write_agent(const std::string& name, const std::string& front_matter) const {
    dir.write("config/agents/" + name + "/agent.md", "---\nschemaVersion: 1\n" + front_matter + "---\nRole.\n");
  }
  void write_assignment(const std::string& name, const std::string& front_matter) const {
    dir.write("config/assignments/" + name + "/assignment.md",
              "---\nschemaVersion: 1\n" + front_matter + "---\nDo it.\n");
  }

  TempDir dir;
  std::map<std::string, std::string> env;
};

TEST_F(Dialect, AnAgentRunnerAgentKeepsItsEffortLevels) {
  write_agent("theirs", "name: theirs\nbackend: codex\neffort: extreme\n");
  auto refused = load_agent(roots(), "theirs");
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(has_problem(problems_of(refused.error()), "agent.md", "effort", "'extreme' is not an effort level"))
      << testing::dump(problems_of(refused.error()));
  EXPECT_TRUE(has_problem(problems_of(refused.error()), "agent.md", "effort", "agent-runner's dialect"));

  for (const char* level : {"off", "minimal", "low", "medium", "high", "xhigh", "max"}) {
    write_agent("theirs", std::string("name: theirs\nbackend: codex\neffort: ") + level + "\n");
    auto loaded = load_agent(roots(), "theirs");
    ASSERT_TRUE(loaded.ok()) << level << ": " << loaded.error().message;
    EXPECT_EQ(loaded->effort, level);
  }
}

TEST_F(Dialect, AgentrysOwnAgentsAreFreeUnlessTheDialectIsChosen) {
  // No name: agentry's (the name is the directory's).
  write_agent("ours", "backend: codex\neffort: extreme\n");
  ASSERT_TRUE(load_agent(roots(), "ours").ok());
  // A name, but a field only agentry has.
  write_agent("mixed", "name: mixed\ndescription: one of ours\nbackend: codex\neffort: extreme\n");
  ASSERT_TRUE(load_agent(roots(), "mixed").ok());
  // Every file, when chosen.
  env["AGENTRY_DEFINITIONS_DIALECT"] = "agent-runner";
  auto refused = load_agent(roots(), "ours");
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(has_problem(problems_of(refused.error()), "agent.md", "effort", "not an effort level"));
}

TEST_F(Dialect, AVarFromTheEnvironmentWithoutEnvNameSaysWhichVariableItReads) {
  write_assignment("theirs", R"(name: theirs
vars:
  api_url:
    sources: [env, cli]
  token:
    sources: [env]
    envName: DEPLOY_TOKEN
  plain:
    type: string
)");
  auto loaded = load_assignment(roots(), "theirs");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  ASSERT_EQ(loaded->warnings.size(), 1u) << testing::dump(loaded->warnings);
  const auto& warning = loaded->warnings[0];
  EXPECT_EQ(warning.field, "vars.api_url");
  EXPECT_NE(warning.message.find("AGENTRY_VAR_API_URL"), std::string::npos) << warning.message;
  EXPECT_NE(warning.message.find("envName: api_url"), std::string::npos) << warning.message;

  // agentry's own file (no name:) reads AGENTRY_VAR_<NAME> as documented, silently.
  write_assignment("ours", "vars:\n  api_url:\n    sources: [env, cli]\nmessage: go\n");
  auto ours = load_assignment(roots(), "ours");
  ASSERT_TRUE(ours.ok()) << ours.error().message;
  EXPECT_TRUE(ours->warnings.empty()) << testing::dump(ours->warnings);
}

}  // namespace
}  // namespace agentry::definitions

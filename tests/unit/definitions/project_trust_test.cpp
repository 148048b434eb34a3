#include "definitions/project_trust.hpp"

#include "definitions/loader.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

namespace agentry::definitions {
namespace {

using testing::fake_env;
using testing::has_problem;
using testing::problems_of;
using testing::TempDir;

class ProjectTrust : public ::testing::Test {
 protected:
  Roots roots(bool trusted) const {
    Roots r{dir.path() / "config", dir.path() / "repo", fake_env(env)};
    r.project_trusted = trusted;
    r.project_env_allow = {"PROJECT_LABEL"};
    return r;
  }
  void write_project(const std::string& relative, const std::string& text) const {
    dir.write("repo/.agentry/" + relative, text);
  }
  void write_agent(const std::string& name, const std::string& front_matter) const {
    write_project("agents/" + name + "/agent.md", "---\nschemaVersion: 1\n" + front_matter + "---\nBody.\n");
  }
  std::vector<Problem> refusals(const std::string& name) const {
    auto untrusted = load_agent(roots(false), name);
    EXPECT_FALSE(untrusted.ok()) << name;
    auto trusted = load_agent(roots(true), name);
    EXPECT_TRUE(trusted.ok()) << name << ": " << (trusted.ok() ? "" : trusted.error().message);
    return untrusted.ok() ? std::vector<Problem>{} : problems_of(untrusted.error());
  }
  std::string digest() const { return project_digest(dir.path() / "repo").value(); }

  TempDir dir;
  std::map<std::string, std::string> env{{"SECRET", "hunter2"}, {"PROJECT_LABEL", "demo"}};
};

TEST_F(ProjectTrust, EveryFieldThatChoosesAProgramIsRefusedUntilTrusted) {
  write_agent("a", "backend: mock\nbackendConfig:\n  mock: {steps: []}\n");
  EXPECT_TRUE(has_problem(refusals("a"), "agents/a/agent.md", "backendConfig", "agentry trust"));
  write_agent("b", "backend: codex\nbackendArgs:\n  codex: {extraArgs: [-c]}\n");
  EXPECT_TRUE(has_problem(refusals("b"), "agents/b/agent.md", "backendArgs", "untrusted project"));
  write_agent("c", "backend: mock\nlauncher: wrap\n");
  EXPECT_TRUE(has_problem(refusals("c"), "agents/c/agent.md", "launcher", "untrusted project"));
  write_agent("d", "backend: mock\nnotify:\n  - command: [touch, x]\n");
  EXPECT_TRUE(has_problem(refusals("d"), "agents/d/agent.md", "notify[0].command", "runs a command"));
  write_project("launchers/wrap.yaml", "schemaVersion: 1\ncommand: [env]\n");
  auto launcher = load_launcher(roots(false), "wrap");
  ASSERT_FALSE(launcher.ok());
  EXPECT_TRUE(has_problem(problems_of(launcher.error()), "launchers/wrap.yaml", "", "is a launcher"));
  EXPECT_TRUE(load_launcher(roots(true), "wrap").ok());

  // An environment runs bwrap or a container engine on the host: the same rule.
  write_project("environments/jail.yaml", "schemaVersion: 1\nkind: bubblewrap\n");
  auto environment = load_environment(roots(false), "jail");
  ASSERT_FALSE(environment.ok());
  EXPECT_TRUE(has_problem(problems_of(environment.error()), "environments/jail.yaml", "", "is an execution environment"));
  EXPECT_TRUE(load_environment(roots(true), "jail").ok());
}

TEST_F(ProjectTrust, HooksThatRunProgramsNeedTrust) {
  write_project("assignments/x/assignment.md",
                "---\nschemaVersion: 1\nhooks:\n  - {phase: prepare, run: [./evil.sh]}\n"
                "  - {phase: prepare, builtin: command, with: {argv: [sh]}}\n---\nDo it.\n");
  auto untrusted = load_assignment(roots(false), "x");
  ASSERT_FALSE(untrusted.ok());
  const auto problems = problems_of(untrusted.error());
  EXPECT_TRUE(has_problem(problems, "assignment.md", "hooks[0]", "runs an executable"));
  EXPECT_TRUE(has_problem(problems, "assignment.md", "hooks[1]", "runs an executable"));
  EXPECT_TRUE(load_assignment(roots(true), "x").ok());
}

TEST_F(ProjectTrust, AnUntrustedProjectReadsOnlyAllowListedVariables) {
  write_agent("leak", "backend: mock\ndescription: ${SECRET}\n");
  auto problems = refusals("leak");
  EXPECT_TRUE(has_problem(problems, "agents/leak/agent.md", "description", "'SECRET'"));
  EXPECT_TRUE(has_problem(problems, "agents/leak/agent.md", "description", "AGENTRY_PROJECT_ENV_ALLOW"));
  write_agent("fallback", "backend: mock\ndescription: ${SECRET:-none}\n");
  EXPECT_TRUE(has_problem(refusals("fallback"), "agent.md", "description", "'SECRET'"));
  write_agent("allowed", "backend: mock\ndescription: ${PROJECT_LABEL}\n");
  EXPECT_EQ(load_agent(roots(false), "allowed")->description, "demo");
  write_agent("signed", "backend: mock\nnotify:\n  - webhook: http://127.0.0.1:9/\n    secretEnv: SECRET\n");
  EXPECT_TRUE(has_problem(refusals("signed"), "agent.md", "notify[0].secretEnv", "'SECRET'"));
  write_project("assignments/vars/assignment.md",
                "---\nschemaVersion: 1\nvars:\n  token: {sources: [env], env: SECRET}\n---\n{{token}}\n");
  auto assignment = load_assignment(roots(false), "vars");
  ASSERT_FALSE(assignment.ok());
  EXPECT_TRUE(has_problem(problems_of(assignment.error()), "assignment.md", "vars.token.env", "'SECRET'"));
  EXPECT_TRUE(load_assignment(roots(true), "vars").ok());
}

TEST_F(ProjectTrust, TheConfigDirectoryWinsAndTheListingSaysTheProjectsWasShadowed) {
  dir.write("config/agents/coder/agent.md", "---\nschemaVersion: 1\nbackend: passive\ndescription: mine\n---\n");
  write_agent("coder", "backend: passive\ndescription: theirs\n");
  write_agent("only-theirs", "backend: passive\n");
  EXPECT_EQ(load_agent(roots(false), "coder")->description, "mine");
  EXPECT_EQ(load_agent(roots(true), "coder")->description, "theirs");
  auto listing = list_agents(roots(false));
  ASSERT_EQ(listing.entries.size(), 2u);
  EXPECT_EQ(listing.entries[0].description, "mine");
  EXPECT_EQ(listing.entries[1].name, "only-theirs");
  EXPECT_TRUE(has_problem(listing.warnings, "repo/.agentry/agents/coder/agent.md", "", "shadowed"));
  EXPECT_TRUE(list_agents(roots(true)).warnings.empty());
}

TEST_F(ProjectTrust, TheDigestChangesWithAnyFileAndNothingElse) {
  write_agent("a", "backend: passive\n");
  const auto first = digest();
  EXPECT_EQ(first.size(), 64u);
  EXPECT_EQ(digest(), first) << "the same files, the same digest";
  dir.write("repo/README.md", "outside .agentry/: not part of it\n");
  EXPECT_EQ(digest(), first);
  write_agent("a", "backend: passive \n");
  const auto edited = digest();
  EXPECT_NE(edited, first);
  write_project("tasks/new.md", "---\nschemaVersion: 1\ntitle: New\n---\n");
  const auto added = digest();
  EXPECT_NE(added, edited);
  std::filesystem::remove(dir.path() / "repo/.agentry/tasks/new.md");
  EXPECT_NE(digest(), added) << "an empty tasks/ directory is still a change";
  std::filesystem::remove(dir.path() / "repo/.agentry/tasks");
  EXPECT_EQ(digest(), edited);
  // A symlink's target is part of what is trusted.
  dir.write("elsewhere.md", "one\n");
  std::filesystem::create_symlink(dir.path() / "elsewhere.md", dir.path() / "repo/.agentry/linked.md");
  const auto linked = digest();
  dir.write("elsewhere.md", "two\n");
  EXPECT_NE(digest(), linked);
  EXPECT_FALSE(project_digest(dir.path() / "nowhere").ok());
}

TEST_F(ProjectTrust, FindsTheProjectAtOrAboveADirectory) {
  write_agent("a", "backend: passive\n");
  std::filesystem::create_directories(dir.path() / "repo/src/deep");
  EXPECT_EQ(find_project_dir(dir.path() / "repo/src/deep"), dir.path() / "repo");
  EXPECT_EQ(find_project_dir(dir.path() / "repo"), dir.path() / "repo");
  EXPECT_FALSE(find_project_dir(dir.path()).has_value());
}

}  // namespace
}  // namespace agentry::definitions

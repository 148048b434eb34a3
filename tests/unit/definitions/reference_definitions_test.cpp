// tests/fixtures/reference-definitions is a config directory written the way
// agent-runner's documentation writes definition files. agentry must read it as it is:
// every file loads, with no warning, and means what it meant there.

#include "definitions/loader.hpp"

#include "definitions/template.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

namespace agentry::definitions {
namespace {

class ReferenceDefinitions : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* source = std::getenv("AGENTRY_SOURCE_DIR");
    if (source == nullptr || *source == '\0') GTEST_SKIP() << "AGENTRY_SOURCE_DIR is not set";
    dir_ = std::filesystem::path(source) / "tests/fixtures/reference-definitions";
    ASSERT_TRUE(std::filesystem::is_directory(dir_)) << dir_;
    roots_ = Roots{dir_, std::nullopt, testing::fake_env()};
  }
  std::filesystem::path dir_;
  Roots roots_;
};

TEST_F(ReferenceDefinitions, EveryFileLoadsWithoutAWarning) {
  const auto counts = testing::expect_every_kind_without_warnings(roots_);
  EXPECT_EQ(counts.agents, 5u);
  EXPECT_EQ(counts.assignments, 2u);
  EXPECT_EQ(counts.launchers, 2u);
  EXPECT_EQ(counts.tasks, 3u);
  const auto agents = list_agents(roots_);
  const auto assignments = list_assignments(roots_);
  const auto tasks = list_task_definitions(roots_);

  // One at a time too, as a run loads them, each without a warning.
  for (const auto& agent : agents.entries) {
    auto loaded = load_agent(roots_, agent.name);
    ASSERT_TRUE(loaded.ok()) << agent.name << ": " << loaded.error().message;
    EXPECT_TRUE(loaded->warnings.empty()) << agent.name << ": " << testing::dump(loaded->warnings);
    if (loaded->launcher && *loaded->launcher != direct_launcher) {
      EXPECT_TRUE(load_launcher(roots_, *loaded->launcher).ok()) << *loaded->launcher;
    }
  }
  for (const auto& assignment : assignments.entries) {
    auto loaded = load_assignment(roots_, assignment.name);
    ASSERT_TRUE(loaded.ok()) << assignment.name << ": " << loaded.error().message;
    EXPECT_TRUE(loaded->warnings.empty()) << assignment.name << ": " << testing::dump(loaded->warnings);
  }
  for (const auto& task : tasks.entries) {
    auto loaded = load_task_definition(roots_, task.id);
    ASSERT_TRUE(loaded.ok()) << task.id << ": " << loaded.error().message;
    EXPECT_TRUE(loaded->warnings.empty()) << task.id;
  }
  // agent-runner's managed container environment, as its docs write one.
  auto environment = load_environment(roots_, "dev-container");
  ASSERT_TRUE(environment.ok()) << environment.error().message;
  EXPECT_TRUE(environment->warnings.empty()) << testing::dump(environment->warnings);
  EXPECT_EQ(environment->container->on_workspace_create.size(), 2u);
  EXPECT_EQ(to_frozen_environment(*environment).network, "default");
  // The inline launcher and `direct`.
  auto niced = load_agent(roots_, "niced");
  ASSERT_TRUE(niced.ok());
  EXPECT_EQ(niced->inline_launcher, (std::vector<std::string>{"nice", "-n", "5"}));
  EXPECT_EQ(load_agent(roots_, "plain")->launcher, "direct");
}

TEST_F(ReferenceDefinitions, LaunchersTakeAProgramAndItsArgs) {
  auto ssh = load_launcher(roots_, "ssh-worker");
  ASSERT_TRUE(ssh.ok()) << ssh.error().message;
  EXPECT_EQ(ssh->command, (std::vector<std::string>{"ssh", "worker", "docker", "exec", "-i", "agent"}));
  auto nice = load_launcher(roots_, "low-priority");  // a .yml file
  ASSERT_TRUE(nice.ok()) << nice.error().message;
  EXPECT_EQ(nice->command, (std::vector<std::string>{"nice", "-n", "10", "ionice", "-c", "3"}));
  EXPECT_EQ(nice->env.at("AGENT_PRIORITY"), "low");
}

TEST_F(ReferenceDefinitions, AgentsKeepTheirSettings) {
  auto planner = load_agent(roots_, "planner");
  ASSERT_TRUE(planner.ok()) << planner.error().message;
  EXPECT_EQ(planner->backend, "claude");
  EXPECT_EQ(planner->model, "claude-sonnet-4-5");
  EXPECT_EQ(planner->timeout_sec, 3600);  // not set: agent-runner's default
  EXPECT_FALSE(planner->unrestricted);
  EXPECT_EQ(backend_config_for(*planner, "claude").at("env").at("CLAUDE_CODE_MAX_RETRIES"), "2");
  EXPECT_EQ(extra_args_for(*planner, "claude"), std::vector<std::string>{"--verbose"});
  EXPECT_EQ(planner->launcher, "ssh-worker");
  auto implementer = load_agent(roots_, "implementer");
  ASSERT_TRUE(implementer.ok()) << implementer.error().message;
  EXPECT_EQ(implementer->timeout_sec, 5400);
  EXPECT_EQ(backend_config_for(*implementer, "codex").at("transport").at("url"), "ws://127.0.0.1:4500/");
}

TEST_F(ReferenceDefinitions, VarsKeepTheirSourcesInOrder) {
  auto review = load_assignment(roots_, "review-changes");
  ASSERT_TRUE(review.ok()) << review.error().message;
  const auto& vars = review->vars;
  ASSERT_EQ(vars.size(), 4u);
  EXPECT_EQ(vars[0].sources, (std::vector<VarSource>{VarSource::cli, VarSource::web}));
  EXPECT_EQ(vars[1].sources, (std::vector<VarSource>{VarSource::parent, VarSource::cli, VarSource::web}));
  EXPECT_EQ(vars[2].sources, (std::vector<VarSource>{VarSource::parent, VarSource::env}));
  EXPECT_EQ(vars[2].env_name(), "DEPLOY_TOKEN");
  EXPECT_EQ(vars[3].env_name(), "REVIEW_STRICT");

  // An env-sourced value, then the parent's, then a default; the caller may not set
  // what it was not allowed to.
  const auto env = testing::fake_env({{"DEPLOY_TOKEN", "from-env"}, {"REVIEW_STRICT", "1"}});
  auto resolved = resolve_var_values(vars, {{"range", "v1..v2"}}, VarSource::cli, env);
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  EXPECT_EQ(resolved->values.at("deploy_token"), "from-env");
  EXPECT_EQ(resolved->origins.at("deploy_token"), VarSource::env);
  EXPECT_EQ(resolved->values.at("strict"), true);
  const boost::json::object parent{{"deploy_token", "from-parent"}, {"branch", "feature-x"}};
  auto child = resolve_var_values(vars, {}, VarSource::cli, env, &parent);
  ASSERT_TRUE(child.ok()) << child.error().message;
  EXPECT_EQ(child->values.at("deploy_token"), "from-parent");
  EXPECT_EQ(child->values.at("branch"), "feature-x");
  EXPECT_EQ(child->values.at("range"), "main..HEAD");
  EXPECT_FALSE(resolve_vars(vars, {{"deploy_token", "x"}}, VarSource::cli, env).ok());
}

TEST_F(ReferenceDefinitions, TemplatesUseOnlyKnownKeys) {
  for (const auto& assignment : list_assignments(roots_).entries) {
    std::vector<std::string> known = builtin_template_keys();
    for (const auto& spec : assignment.vars) known.push_back(spec.name);
    auto check = [&](const std::string& text) {
      for (const auto& key : template_keys(text))
        EXPECT_NE(std::find(known.begin(), known.end(), key), known.end()) << assignment.name << ": " << key;
    };
    check(assignment.instructions);
    check(assignment.message.value_or(""));
    for (const auto& task : assignment.tasks) {
      check(task.title);
      check(task.body);
    }
  }
  auto implement = load_assignment(roots_, "implement-feature");
  ASSERT_TRUE(implement.ok());
  std::vector<std::string> ids;
  for (const auto& task : implement->tasks) ids.push_back(task.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"feature/orient", "plan", "implement", "checks/verify"}));
}

}  // namespace
}  // namespace agentry::definitions

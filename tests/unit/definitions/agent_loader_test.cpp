#include "definitions/loader.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

namespace agentry::definitions {
namespace {

using testing::fake_env;
using testing::has_problem;
using testing::problems_of;
using testing::TempDir;

class AgentLoader : public ::testing::Test {
 protected:
  Roots roots() const { return Roots{dir.path() / "config", std::nullopt, fake_env(env)}; }
  void write_agent(const std::string& name, const std::string& text) const {
    dir.write("config/agents/" + name + "/agent.md", text);
  }
  core::Error load_error(std::string_view target) const {
    auto result = load_agent(roots(), target);
    EXPECT_FALSE(result.ok());
    return result.ok() ? core::Error{} : result.error();
  }

  TempDir dir;
  std::map<std::string, std::string> env;
};

TEST_F(AgentLoader, LoadsEveryField) {
  env["CODEX_URL"] = "ws://localhost:9";
  write_agent("planner", R"(---
schemaVersion: 1
name: planner
description: Plans the work
backend: codex
model: "4"
effort: high
timeoutSec: 600
unrestricted: false
backendConfig:
  codex:
    transport: {type: ws, url: "${CODEX_URL}"}
    retries: 2
backendArgs:
  codex:
    extraArgs: ["--search", "-c", "x=1"]
lockedFields: [model, backend]
launcher: nice
---
You plan.

Carefully.
)");
  auto agent = load_agent(roots(), "planner");
  ASSERT_TRUE(agent.ok()) << agent.error().message;
  EXPECT_EQ(agent->name, "planner");
  EXPECT_EQ(agent->source_path, dir.path() / "config/agents/planner/agent.md");
  EXPECT_EQ(agent->description, "Plans the work");
  EXPECT_EQ(agent->backend, "codex");
  EXPECT_EQ(agent->model, "4");
  EXPECT_EQ(agent->effort, "high");
  EXPECT_EQ(agent->timeout_sec, 600);
  EXPECT_FALSE(agent->unrestricted);
  const auto codex = backend_config_for(*agent, "codex");
  EXPECT_EQ(codex.at("transport").at("url").as_string(), "ws://localhost:9");
  EXPECT_EQ(codex.at("retries").as_int64(), 2);
  EXPECT_EQ(extra_args_for(*agent, "codex"), (std::vector<std::string>{"--search", "-c", "x=1"}));
  EXPECT_TRUE(extra_args_for(*agent, "claude").empty());
  EXPECT_EQ(agent->locked_fields, (std::vector<std::string>{"model", "backend"}));
  EXPECT_EQ(agent->launcher, "nice");
  EXPECT_EQ(agent->instructions, "You plan.\n\nCarefully.");
  EXPECT_TRUE(agent->warnings.empty()) << testing::dump(agent->warnings);
}

TEST_F(AgentLoader, AppliesDefaults) {
  write_agent("min", "---\nschemaVersion: 1\nbackend: passive\n---\n");
  auto agent = load_agent(roots(), "min");
  ASSERT_TRUE(agent.ok()) << agent.error().message;
  EXPECT_TRUE(agent->unrestricted);
  EXPECT_EQ(agent->model, std::nullopt);
  EXPECT_EQ(agent->timeout_sec, 3600);
  EXPECT_EQ(agent->launcher, std::nullopt);
  EXPECT_TRUE(agent->backend_config.empty());
  EXPECT_EQ(agent->instructions, "");
}

TEST_F(AgentLoader, PlacementNamesTheLabelsAMemberNeeds) {
  write_agent("gpu", "---\nschemaVersion: 1\nbackend: passive\nplacement:\n  labels: [gpu, region=eu]\n---\n");
  auto agent = load_agent(roots(), "gpu");
  ASSERT_TRUE(agent.ok()) << agent.error().message;
  EXPECT_EQ(agent->placement_labels, (std::vector<std::string>{"gpu", "region=eu"}));
  write_agent("bad", "---\nschemaVersion: 1\nbackend: passive\nplacement:\n  labels: [\"two words\"]\n---\n");
  auto error = load_error("bad");
  EXPECT_NE(error.message.find("placement.labels[0]"), std::string::npos) << error.message;
  write_agent("flat", "---\nschemaVersion: 1\nbackend: passive\nplacement: gpu\n---\n");
  error = load_error("flat");
  EXPECT_NE(error.message.find("placement"), std::string::npos) << error.message;
}

TEST_F(AgentLoader, TimeoutZeroMeansNoLimit) {
  write_agent("free", "---\nschemaVersion: 1\nbackend: passive\ntimeoutSec: 0\n---\n");
  auto agent = load_agent(roots(), "free");
  ASSERT_TRUE(agent.ok()) << agent.error().message;
  EXPECT_EQ(agent->timeout_sec, 0);
  // An empty value is absent, so it gets the default rather than "no limit".
  write_agent("unset", "---\nschemaVersion: 1\nbackend: passive\ntimeoutSec: ${T:-}\n---\n");
  EXPECT_EQ(load_agent(roots(), "unset")->timeout_sec, 3600);
}

TEST_F(AgentLoader, EmptyInterpolationMeansUnset) {
  write_agent("a", "---\nschemaVersion: 1\nbackend: passive\nmodel: ${MODEL:-}\ntimeoutSec: ${T:-90}\n---\n");
  auto agent = load_agent(roots(), "a");
  ASSERT_TRUE(agent.ok()) << agent.error().message;
  EXPECT_EQ(agent->model, std::nullopt);
  EXPECT_EQ(agent->timeout_sec, 90);
}

TEST_F(AgentLoader, MissingAgentIsNotFoundAndNamesTheDirectories) {
  auto result = load_agent(roots(), "ghost");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, core::ErrorCode::not_found);
  EXPECT_NE(result.error().message.find("no agent named 'ghost'"), std::string::npos);
  EXPECT_NE(result.error().message.find((dir.path() / "config/agents").string()), std::string::npos);
}

TEST_F(AgentLoader, InvalidNameIsAnInvalidRequest) {
  EXPECT_EQ(load_error("a/b").code, core::ErrorCode::invalid_request);
  EXPECT_EQ(load_error(".hidden").code, core::ErrorCode::invalid_request);
}

TEST_F(AgentLoader, SchemaVersionIsRequiredAndMustBeOne) {
  write_agent("none", "---\nbackend: passive\n---\n");
  write_agent("two", "---\nschemaVersion: 2\nbackend: passive\n---\n");
  auto none = load_error("none");
  EXPECT_EQ(none.code, core::ErrorCode::validation);
  EXPECT_TRUE(has_problem(problems_of(none), "agents/none/agent.md", "schemaVersion", "is required"));
  EXPECT_TRUE(has_problem(problems_of(load_error("two")), "agents/two/agent.md", "schemaVersion", "must be 1"));
}

TEST_F(AgentLoader, ErrorsNameFileAndField) {
  write_agent("bad", R"(---
schemaVersion: 1
timeoutSec: -5
unrestricted: maybe
backendConfig: [1, 2]
backendArgs:
  codex:
    extraArgs: "--one"
lockedFields: [ok, [nested]]
launcher: "../escape"
---
)");
  const auto error = load_error("bad");
  EXPECT_EQ(error.code, core::ErrorCode::validation);
  EXPECT_EQ(error.details.at("path").as_string(), (dir.path() / "config/agents/bad/agent.md").string());
  const auto problems = problems_of(error);
  EXPECT_TRUE(has_problem(problems, "bad/agent.md", "backend", "is required")) << testing::dump(problems);
  EXPECT_TRUE(has_problem(problems, "bad/agent.md", "timeoutSec", "not -5"));
  EXPECT_TRUE(has_problem(problems, "bad/agent.md", "unrestricted", "true or false"));
  EXPECT_TRUE(has_problem(problems, "bad/agent.md", "backendConfig", "must be a map"));
  EXPECT_TRUE(has_problem(problems, "bad/agent.md", "backendArgs.codex.extraArgs", "list of strings"));
  EXPECT_TRUE(has_problem(problems, "bad/agent.md", "lockedFields[1]", "must be a string"));
  EXPECT_TRUE(has_problem(problems, "bad/agent.md", "launcher", "not a launcher name"));
  EXPECT_NE(error.message.find("more problems"), std::string::npos);
}

TEST_F(AgentLoader, UnsetVariableIsAnErrorNamingFieldAndVariable) {
  write_agent("a", "---\nschemaVersion: 1\nbackend: passive\nmodel: ${AGENT_MODEL}\n---\n");
  const auto problems = problems_of(load_error("a"));
  EXPECT_TRUE(has_problem(problems, "agents/a/agent.md", "model", "'AGENT_MODEL' is not set"));
  EXPECT_TRUE(has_problem(problems, "agents/a/agent.md", "model", "${AGENT_MODEL:-default}"));
}

TEST_F(AgentLoader, UnknownKeysAreWarnings) {
  write_agent("a", "---\nschemaVersion: 1\nbackend: passive\nmodle: x\nbackendArgs: {codex: {extra: []}}\n---\n");
  auto agent = load_agent(roots(), "a");
  ASSERT_TRUE(agent.ok()) << agent.error().message;
  EXPECT_TRUE(has_problem(agent->warnings, "agents/a/agent.md", "modle", "unknown field 'modle'"));
  EXPECT_TRUE(has_problem(agent->warnings, "agents/a/agent.md", "backendArgs.codex.extra", "unknown field"));
}

TEST_F(AgentLoader, NameDifferentFromDirectorySkipsTheDefinition) {
  write_agent("planner", "---\nschemaVersion: 1\nname: plannr\nbackend: passive\n---\n");
  const auto error = load_error("planner");
  EXPECT_EQ(error.code, core::ErrorCode::validation);
  EXPECT_TRUE(has_problem(problems_of(error), "agents/planner/agent.md", "name", "'plannr'"));
}

TEST_F(AgentLoader, MalformedFilesAreValidationErrors) {
  write_agent("nofm", "schemaVersion: 1\nbackend: passive\n");
  write_agent("list", "---\n- a\n- b\n---\n");
  write_agent("empty", "---\n---\nbody\n");
  write_agent("syntax", "---\nschemaVersion: 1\nbackend: [passive\n---\n");
  EXPECT_TRUE(has_problem(problems_of(load_error("nofm")), "nofm/agent.md", "", "must start with a '---'"));
  EXPECT_TRUE(has_problem(problems_of(load_error("list")), "list/agent.md", "", "YAML map"));
  EXPECT_TRUE(has_problem(problems_of(load_error("empty")), "empty/agent.md", "", "front matter is empty"));
  EXPECT_TRUE(has_problem(problems_of(load_error("syntax")), "syntax/agent.md", "", "invalid YAML at line"));
}

TEST_F(AgentLoader, DirectPathsResolveAgainstTheGivenCwd) {
  write_agent("planner", "---\nschemaVersion: 1\nbackend: passive\n---\nbody\n");
  dir.write("elsewhere/reviewer.md", "---\nschemaVersion: 1\nname: reviewer\nbackend: passive\n---\n");

  auto relative = load_agent(roots(), "./agents/planner/agent.md", dir.path() / "config");
  ASSERT_TRUE(relative.ok()) << relative.error().message;
  EXPECT_EQ(relative->name, "planner");

  auto as_directory = load_agent(roots(), "./agents/planner", dir.path() / "config");
  ASSERT_TRUE(as_directory.ok()) << as_directory.error().message;

  auto absolute = load_agent(roots(), (dir.path() / "config/agents/planner/agent.md").string());
  ASSERT_TRUE(absolute.ok()) << absolute.error().message;
  EXPECT_EQ(absolute->name, "planner");

  auto no_cwd = load_agent(roots(), "./agents/planner/agent.md");
  ASSERT_FALSE(no_cwd.ok());
  EXPECT_EQ(no_cwd.error().code, core::ErrorCode::invalid_request);

  auto missing = load_agent(roots(), "./nope.md", dir.path() / "config");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, core::ErrorCode::not_found);
}

TEST_F(AgentLoader, DirectPathsOutsideTheDefinitionRootsAreRefusedAlike) {
  write_agent("planner", "---\nschemaVersion: 1\nbackend: passive\n---\nbody\n");
  dir.write("elsewhere/reviewer.md", "---\nschemaVersion: 1\nname: reviewer\nbackend: passive\n---\n");
  std::filesystem::create_directory_symlink(dir.path() / "elsewhere", dir.path() / "config/agents/link");
  // An existing file, a missing one, an escape by "..", one by a symlink: the same
  // answer, so the API tells nothing about files outside the roots.
  for (const std::string& target :
       {(dir.path() / "elsewhere/reviewer.md").string(), std::string("/etc/passwd"), std::string("/nope/none.md"),
        std::string("./agents/../../elsewhere/reviewer.md"), std::string("./agents/link/reviewer.md")}) {
    auto result = load_agent(roots(), target, dir.path() / "config");
    ASSERT_FALSE(result.ok()) << target;
    EXPECT_EQ(result.error().code, core::ErrorCode::forbidden) << target << ": " << result.error().message;
    EXPECT_NE(result.error().message.find("outside the definition directories"), std::string::npos);
  }
  // A project's own .agentry/ counts as a root.
  dir.write("project/.agentry/agents/local/agent.md", "---\nschemaVersion: 1\nbackend: passive\n---\n");
  Roots with_project = roots();
  with_project.project_dir = dir.path() / "project";
  auto local = load_agent(with_project, (dir.path() / "project/.agentry/agents/local/agent.md").string());
  ASSERT_TRUE(local.ok()) << local.error().message;
  auto beside = load_agent(with_project, (dir.path() / "project/agent.md").string());
  ASSERT_FALSE(beside.ok());
  EXPECT_EQ(beside.error().code, core::ErrorCode::forbidden);
}

TEST_F(AgentLoader, ATrustedProjectWinsOverTheConfigDirectoryAnUntrustedOneNever) {
  write_agent("planner", "---\nschemaVersion: 1\nbackend: passive\ndescription: global\n---\n");
  dir.write("project/.agentry/agents/planner/agent.md",
            "---\nschemaVersion: 1\nbackend: passive\ndescription: local\n---\n");
  Roots with_project = roots();
  with_project.project_dir = dir.path() / "project";
  EXPECT_EQ(load_agent(with_project, "planner")->description, "global");
  with_project.project_trusted = true;
  auto agent = load_agent(with_project, "planner");
  ASSERT_TRUE(agent.ok());
  EXPECT_EQ(agent->description, "local");
  EXPECT_EQ(load_agent(roots(), "planner")->description, "global");
}

TEST_F(AgentLoader, ReadsTheFileAgainOnEveryCall) {
  write_agent("a", "---\nschemaVersion: 1\nbackend: passive\ndescription: one\n---\n");
  EXPECT_EQ(load_agent(roots(), "a")->description, "one");
  write_agent("a", "---\nschemaVersion: 1\nbackend: passive\ndescription: two\n---\n");
  EXPECT_EQ(load_agent(roots(), "a")->description, "two");
}

// `ad-hoc` is the agent of a run that names none (engine/ad_hoc_agent.hpp).
TEST_F(AgentLoader, AdHocIsNoAgentFilesName) {
  write_agent("ad-hoc", "---\nschemaVersion: 1\nbackend: passive\n---\nRole.\n");
  auto refused = load_agent(roots(), "ad-hoc");
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(has_problem(problems_of(refused.error()), "agent.md", "name", "reserved"))
      << testing::dump(problems_of(refused.error()));
}

TEST_F(AgentLoader, BackendAndUnrestrictedCanBeUnlocked) {
  write_agent("open", "---\nschemaVersion: 1\nbackend: codex\nunlockedFields: [backend, unrestricted, launcher]\n---\n");
  auto loaded = load_agent(roots(), "open");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(loaded->unlocked_fields, (std::vector<std::string>{"backend", "unrestricted", "launcher"}));
  write_agent("odd", "---\nschemaVersion: 1\nbackend: codex\nunlockedFields: [model]\n---\n");
  auto refused = load_agent(roots(), "odd");
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(has_problem(problems_of(refused.error()), "agent.md", "unlockedFields[0]", "backend and unrestricted"));
}

}  // namespace
}  // namespace agentry::definitions

#include "definitions/loader.hpp"

#include "test_support.hpp"

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

namespace agentry::definitions {
namespace {

using testing::fake_env;
using testing::has_problem;
using testing::problems_of;
using testing::TempDir;

class AssignmentLoader : public ::testing::Test {
 protected:
  Roots roots() const { return Roots{dir.path() / "config", std::nullopt, fake_env(env)}; }
  void write_assignment(const std::string& name, const std::string& text) const {
    dir.write("config/assignments/" + name + "/assignment.md", text);
  }
  std::vector<Problem> problems(std::string_view name) const {
    auto result = load_assignment(roots(), name);
    EXPECT_FALSE(result.ok());
    return result.ok() ? std::vector<Problem>{} : problems_of(result.error());
  }

  TempDir dir;
  std::map<std::string, std::string> env;
};

TEST_F(AssignmentLoader, LoadsEveryField) {
  write_assignment("ship", R"(---
schemaVersion: 1
name: ship
description: Ship a feature
cwd: ~/src/app
message: "Build {{feature}}"
maxRetries: 5
schedule: {cron: "0 9 * * *", timezone: UTC}
callerInstructions: Ask for a feature name.
lockedFields: [message]
vars:
  feature:
    type: string
    required: true
    description: What to build
  size:
    type: enum
    values: [s, m, l]
    default: m
    sources: [cli, web]
  count:
    type: number
    default: 3
    env: SHIP_COUNT
  dry_run:
    type: boolean
    default: false
  note:
tasks:
  - {id: plan, title: Plan it, body: Write a plan}
  - id: build
---
Ship {{feature}}.
)");
  auto assignment = load_assignment(roots(), "ship");
  ASSERT_TRUE(assignment.ok()) << assignment.error().message;
  EXPECT_EQ(assignment->name, "ship");
  EXPECT_EQ(assignment->description, "Ship a feature");
  EXPECT_EQ(assignment->cwd, "~/src/app");
  EXPECT_EQ(assignment->message, "Build {{feature}}");
  EXPECT_EQ(assignment->max_retries, 5);
  EXPECT_EQ(boost::json::serialize(assignment->schedule), R"({"cron":"0 9 * * *","timezone":"UTC"})");
  EXPECT_EQ(assignment->caller_instructions, "Ask for a feature name.");
  EXPECT_EQ(assignment->locked_fields, std::vector<std::string>{"message"});
  EXPECT_EQ(assignment->instructions, "Ship {{feature}}.");
  EXPECT_TRUE(assignment->warnings.empty()) << testing::dump(assignment->warnings);

  ASSERT_EQ(assignment->vars.size(), 5u);
  const auto& feature = assignment->vars[0];
  EXPECT_EQ(feature.name, "feature");
  EXPECT_EQ(feature.type, VarType::string);
  EXPECT_TRUE(feature.required);
  EXPECT_EQ(feature.sources, (std::vector<VarSource>{VarSource::cli, VarSource::web}));
  EXPECT_EQ(feature.env_name(), "AGENTRY_VAR_FEATURE");
  const auto& size = assignment->vars[1];
  EXPECT_EQ(size.type, VarType::enumeration);
  EXPECT_EQ(size.values, (std::vector<std::string>{"s", "m", "l"}));
  EXPECT_EQ(size.default_value, boost::json::value("m"));
  EXPECT_EQ(size.sources, (std::vector<VarSource>{VarSource::cli, VarSource::web}));
  const auto& count = assignment->vars[2];
  EXPECT_EQ(count.default_value, boost::json::value(3));
  EXPECT_EQ(count.env_name(), "SHIP_COUNT");
  EXPECT_EQ(assignment->vars[3].default_value, boost::json::value(false));
  EXPECT_EQ(assignment->vars[4].type, VarType::string);
  EXPECT_FALSE(assignment->vars[4].required);

  ASSERT_EQ(assignment->tasks.size(), 2u);
  EXPECT_EQ(assignment->tasks[0].title, "Plan it");
  EXPECT_EQ(assignment->tasks[1].title, "build");
  EXPECT_EQ(assignment->tasks[1].source, "inline");
}

TEST_F(AssignmentLoader, AppliesDefaults) {
  write_assignment("min", "---\nschemaVersion: 1\n---\nDo it.\n");
  auto assignment = load_assignment(roots(), "min");
  ASSERT_TRUE(assignment.ok()) << assignment.error().message;
  EXPECT_EQ(assignment->max_retries, 3);
  EXPECT_EQ(assignment->message, std::nullopt);
  EXPECT_EQ(assignment->cwd, std::nullopt);
  EXPECT_TRUE(assignment->schedule.is_null());
  EXPECT_TRUE(assignment->vars.empty());
  EXPECT_TRUE(assignment->tasks.empty());
}

TEST_F(AssignmentLoader, MaxRetriesMustBeZeroToTwenty) {
  write_assignment("a", "---\nschemaVersion: 1\nmaxRetries: 21\n---\n");
  write_assignment("b", "---\nschemaVersion: 1\nmaxRetries: lots\n---\n");
  EXPECT_TRUE(has_problem(problems("a"), "assignments/a/assignment.md", "maxRetries", "from 0 to 20"));
  EXPECT_TRUE(has_problem(problems("b"), "assignments/b/assignment.md", "maxRetries", "'lots'"));
}

TEST_F(AssignmentLoader, VarErrorsNameTheVarField) {
  write_assignment("v", R"(---
schemaVersion: 1
vars:
  target:
    type: text
  mode:
    type: enum
  level:
    type: enum
    values: []
  count:
    type: number
    default: many
  flag:
    type: boolean
    default: "perhaps"
  pick:
    type: enum
    values: [a, b]
    default: c
  src:
    sources: [cli, mail]
  with_values:
    values: [a]
  bad_env:
    env: "not valid"
  1st:
    type: string
  shape: [1, 2]
---
)");
  const auto found = problems("v");
  const std::string file = "assignments/v/assignment.md";
  EXPECT_TRUE(has_problem(found, file, "vars.target.type", "'text' is not a var type")) << testing::dump(found);
  EXPECT_TRUE(has_problem(found, file, "vars.mode.values", "is required for an enum"));
  EXPECT_TRUE(has_problem(found, file, "vars.level.values", "at least one value"));
  EXPECT_TRUE(has_problem(found, file, "vars.count.default", "must be a number"));
  EXPECT_TRUE(has_problem(found, file, "vars.flag.default", "true or false"));
  EXPECT_TRUE(has_problem(found, file, "vars.pick.default", "must be one of a, b"));
  EXPECT_TRUE(has_problem(found, file, "vars.src.sources[1]", "'mail' is not a source"));
  EXPECT_TRUE(has_problem(found, file, "vars.with_values.values", "only allowed when type is enum"));
  EXPECT_TRUE(has_problem(found, file, "vars.bad_env.env", "not an environment variable name"));
  EXPECT_TRUE(has_problem(found, file, "vars.1st", "not a var name"));
  EXPECT_TRUE(has_problem(found, file, "vars.shape", "must be a map"));
}

TEST_F(AssignmentLoader, EnvNameIsAnotherSpellingOfEnv) {
  write_assignment("a", R"(---
schemaVersion: 1
vars:
  token:
    sources: [env, cli]
    envName: GITHUB_TOKEN
  level:
    env: LEVEL
    envName: LEVEL
  plain:
    sources: [parent, env]
---
)");
  auto assignment = load_assignment(roots(), "a");
  ASSERT_TRUE(assignment.ok()) << assignment.error().message;
  EXPECT_TRUE(assignment->warnings.empty()) << testing::dump(assignment->warnings);
  EXPECT_EQ(assignment->vars[0].env_name(), "GITHUB_TOKEN");
  EXPECT_EQ(assignment->vars[0].sources, (std::vector<VarSource>{VarSource::env, VarSource::cli}));
  EXPECT_EQ(assignment->vars[1].env_name(), "LEVEL");
  EXPECT_EQ(assignment->vars[2].env_name(), "AGENTRY_VAR_PLAIN");
  EXPECT_EQ(assignment->vars[2].sources, (std::vector<VarSource>{VarSource::parent, VarSource::env}));

  write_assignment("b", R"(---
schemaVersion: 1
vars:
  token:
    env: API_TOKEN
    envName: GITHUB_TOKEN
  bad:
    envName: "not valid"
---
)");
  const auto found = problems("b");
  EXPECT_TRUE(has_problem(found, "assignments/b/assignment.md", "vars.token.envName",
                          "is 'GITHUB_TOKEN' but 'env' is 'API_TOKEN'"))
      << testing::dump(found);
  EXPECT_TRUE(has_problem(found, "assignments/b/assignment.md", "vars.bad.envName", "not an environment variable name"));
}

TEST_F(AssignmentLoader, UnknownTemplateKeysAreWarnings) {
  write_assignment("t", R"(---
schemaVersion: 1
message: "Ship {{featur}} in {{cwd}}"
callerInstructions: "Review {{feature}} of run {{run_id}}, then {{deploy}}"
vars:
  feature:
tasks:
  - {id: plan, title: "Plan {{feature}}", body: "Run {{run_id}} for {{ticket}}"}
---
Work on {{feature}} as {{ assignment_name }}; CI reads ${{ secrets.TOKEN }}.
)");
  auto assignment = load_assignment(roots(), "t");
  ASSERT_TRUE(assignment.ok()) << assignment.error().message;
  const auto& w = assignment->warnings;
  EXPECT_EQ(w.size(), 4u) << testing::dump(w);
  EXPECT_TRUE(has_problem(w, "assignments/t/assignment.md", "callerInstructions", "'deploy'")) << testing::dump(w);
  EXPECT_TRUE(has_problem(w, "assignments/t/assignment.md", "message", "unknown template key 'featur' left as written"))
      << testing::dump(w);
  EXPECT_TRUE(has_problem(w, "assignments/t/assignment.md", "message", "known keys: agent_runner_cmd, assignment_name, "
                                                                       "config_dir, cwd, feature, run_group_id, run_id, "
                                                                       "state_dir"));
  EXPECT_TRUE(has_problem(w, "assignments/t/assignment.md", "tasks[0].body", "'ticket'"));
  EXPECT_TRUE(has_problem(w, "assignments/t/assignment.md", "body", "'secrets.TOKEN'"));
  // Listings show the same warnings, and the assignment is still listed.
  const auto list = list_assignments(roots());
  EXPECT_EQ(list.entries.size(), 1u);
  EXPECT_TRUE(has_problem(list.warnings, "assignments/t/assignment.md", "message", "'featur'"));
}

TEST_F(AssignmentLoader, UnknownVarKeysAreWarnings) {
  write_assignment("a", "---\nschemaVersion: 1\nvars:\n  x:\n    typ: string\n---\n");
  auto assignment = load_assignment(roots(), "a");
  ASSERT_TRUE(assignment.ok()) << assignment.error().message;
  EXPECT_TRUE(has_problem(assignment->warnings, "assignment.md", "vars.x.typ", "unknown field 'typ'"));
}

TEST_F(AssignmentLoader, NameMismatchSkipsTheDefinition) {
  write_assignment("ship", "---\nschemaVersion: 1\nname: sail\n---\n");
  EXPECT_TRUE(has_problem(problems("ship"), "assignments/ship/assignment.md", "name", "skipped"));
}

}  // namespace
}  // namespace agentry::definitions

#include "core/run.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <string>

namespace agentry::core {
namespace {
namespace json = boost::json;

/// Every field set to something other than its default.
FrozenInputs full_inputs() {
  FrozenInputs in;
  in.agent_name = "coder";
  in.agent_source_path = "/home/u/.config/agentry/agents/coder/agent.md";
  in.assignment_name = "implement-feature";
  in.assignment_source_path = "/home/u/.config/agentry/assignments/implement-feature/assignment.md";
  in.backend = "claude";
  in.model = "opus";
  in.effort = "high";
  in.timeout_sec = 900;
  in.unrestricted = false;
  in.backend_config = {{"permissionMode", "plan"}, {"nested", json::object{{"depth", 2}}}};
  in.extra_args = {"--verbose", "--flag=value with spaces"};
  in.launcher = FrozenLauncher{"nice", {"nice", "-n", "10"}, {{"LANG", "C.UTF-8"}, {"EMPTY", ""}}};
  in.agent_instructions = "You are a coder.\nBe careful.";
  in.assignment_instructions = "Implement login for app.";
  in.agent_instructions_template = "You are a {{role}}.\nBe careful.";
  in.assignment_instructions_template = "Implement {{feature}} for {{project}}.";
  in.caller_instructions = "Keep commits small on login.";
  in.caller_instructions_template = "Keep commits small on {{feature}}.";
  in.message = "Start with the form \"quoted\" \xc3\xa9";
  in.message_template = "Start with the {{part}}";
  in.brief = "Brief: implement login.";
  in.task_templates = json::array{
      json::object{{"id", "design"}, {"title", "Design {{feature}}"}, {"body", "Sketch it."}},
      json::object{{"id", "build"}, {"title", "Build it"}, {"body", ""}},
  };
  in.vars = {{"feature", "login"}, {"count", 3}, {"enabled", true}, {"list", json::array{"a", "b"}}};
  in.var_sources = {{"feature", json::object{{"source", "env"}, {"envName", "FEATURE"}, {"redacted", true}}}};
  in.var_specs = {{"feature", json::object{{"type", "string"}, {"required", true}}}};
  in.cli_vars = {{"feature", "login"}};
  in.locked_fields = {"tasks", "model"};
  in.max_attempts_per_session = 7;
  return in;
}

void expect_same(const FrozenInputs& a, const FrozenInputs& b) {
  EXPECT_EQ(a.agent_name, b.agent_name);
  EXPECT_EQ(a.agent_source_path, b.agent_source_path);
  EXPECT_EQ(a.assignment_name, b.assignment_name);
  EXPECT_EQ(a.assignment_source_path, b.assignment_source_path);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.model, b.model);
  EXPECT_EQ(a.effort, b.effort);
  EXPECT_EQ(a.timeout_sec, b.timeout_sec);
  EXPECT_EQ(a.unrestricted, b.unrestricted);
  EXPECT_EQ(a.backend_config, b.backend_config);
  EXPECT_EQ(a.extra_args, b.extra_args);
  ASSERT_EQ(a.launcher.has_value(), b.launcher.has_value());
  if (a.launcher) {
    EXPECT_EQ(a.launcher->name, b.launcher->name);
    EXPECT_EQ(a.launcher->command, b.launcher->command);
    EXPECT_EQ(a.launcher->env, b.launcher->env);
  }
  EXPECT_EQ(a.agent_instructions, b.agent_instructions);
  EXPECT_EQ(a.assignment_instructions, b.assignment_instructions);
  EXPECT_EQ(a.agent_instructions_template, b.agent_instructions_template);
  EXPECT_EQ(a.assignment_instructions_template, b.assignment_instructions_template);
  EXPECT_EQ(a.caller_instructions, b.caller_instructions);
  EXPECT_EQ(a.caller_instructions_template, b.caller_instructions_template);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.message_template, b.message_template);
  EXPECT_EQ(a.brief, b.brief);
  EXPECT_EQ(a.task_templates, b.task_templates);
  EXPECT_EQ(a.vars, b.vars);
  EXPECT_EQ(a.var_sources, b.var_sources);
  EXPECT_EQ(a.var_specs, b.var_specs);
  EXPECT_EQ(a.cli_vars, b.cli_vars);
  EXPECT_EQ(a.locked_fields, b.locked_fields);
  EXPECT_EQ(a.max_attempts_per_session, b.max_attempts_per_session);
}

TEST(FrozenInputsJson, RoundTripsEveryField) {
  const FrozenInputs in = full_inputs();
  expect_same(frozen_inputs_from_json(to_json(in)), in);
}

TEST(FrozenInputsJson, RoundTripsEveryFieldThroughJsonText) {
  // The store keeps frozen inputs as text; what comes back from the parser must match.
  const FrozenInputs in = full_inputs();
  const std::string text = json::serialize(to_json(in));
  expect_same(frozen_inputs_from_json(json::parse(text)), in);
}

TEST(FrozenInputsJson, RoundTripsDefaults) {
  const FrozenInputs in;
  const FrozenInputs out = frozen_inputs_from_json(json::parse(json::serialize(to_json(in))));
  expect_same(out, in);
  EXPECT_FALSE(out.launcher.has_value());
  EXPECT_TRUE(out.unrestricted);
  EXPECT_EQ(out.max_attempts_per_session, 4);
}

TEST(FrozenInputsJson, UsesCamelCaseKeysAndNullForNoLauncher) {
  FrozenInputs in = full_inputs();
  const auto with = to_json(in).as_object();
  for (const char* key : {"agentName", "backend", "timeoutSec", "unrestricted", "launcher", "vars", "taskTemplates",
                          "lockedFields", "maxAttemptsPerSession", "cliVars", "varSources", "varSpecs", "extraArgs"})
    EXPECT_TRUE(with.contains(key)) << key;
  EXPECT_TRUE(with.at("launcher").is_object());
  EXPECT_EQ(with.at("launcher").at("command").as_array().size(), 3u);

  in.launcher.reset();
  const auto without = to_json(in).as_object();
  ASSERT_TRUE(without.contains("launcher"));
  EXPECT_TRUE(without.at("launcher").is_null());
  EXPECT_FALSE(frozen_inputs_from_json(without).launcher.has_value());
}

TEST(FrozenInputsJson, CallerInstructionsFrozenBeforeTheyWereTemplatedAreTheirOwnTemplate) {
  const auto out = frozen_inputs_from_json(json::object{{"callerInstructions", "Ask for {{x}}."}});
  EXPECT_EQ(out.caller_instructions_template, "Ask for {{x}}.");
}

TEST(FrozenInputsJson, MissingOrMistypedFieldsFallBackToDefaults) {
  const FrozenInputs defaults;
  expect_same(frozen_inputs_from_json(json::value(nullptr)), defaults);
  expect_same(frozen_inputs_from_json(json::array{1, 2}), defaults);
  expect_same(frozen_inputs_from_json(json::object{}), defaults);

  const json::object mistyped{{"agentName", 5},       {"timeoutSec", "900"},       {"unrestricted", "no"},
                              {"extraArgs", "--x"},   {"launcher", "nice"},        {"vars", json::array{}},
                              {"lockedFields", json::array{"tasks", 3, nullptr}}, {"taskTemplates", "x"}};
  const FrozenInputs out = frozen_inputs_from_json(mistyped);
  EXPECT_EQ(out.agent_name, "");
  EXPECT_EQ(out.timeout_sec, 0);
  EXPECT_TRUE(out.unrestricted);
  EXPECT_TRUE(out.extra_args.empty());
  EXPECT_FALSE(out.launcher.has_value());
  EXPECT_TRUE(out.vars.empty());
  EXPECT_EQ(out.locked_fields, std::vector<std::string>{"tasks"});
  EXPECT_TRUE(out.task_templates.empty());
}

}  // namespace
}  // namespace agentry::core

// RunDetail hides values the run read from the environment: they are often secrets.
#include "events/projections.hpp"

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

namespace agentry::events {
namespace {
namespace json = boost::json;

core::Run run_with_secret() {
  core::Run run;
  run.id = "r1";
  run.run_group_id = "r1";
  auto& f = run.frozen;
  f.vars = {{"token", "ghp_0123456789abcdef"}, {"level", "info"}, {"feature", "search"},
            {"inherited", "parent-secret-value"}, {"count", 3}, {"none", nullptr}};
  f.var_sources = {
      {"token", {{"source", "env"}, {"envName", "GITHUB_TOKEN"}, {"redacted", true}}},
      {"level", {{"source", "env"}, {"envName", "LOG_LEVEL"}, {"redacted", true}}},
      {"feature", {{"source", "cli"}}},
      {"inherited", {{"source", "parent"}, {"envName", "DEPLOY_KEY"}, {"redacted", true}, {"inheritedFromRunId", "p1"}}},
      {"count", {{"source", "default"}}},
  };
  f.message = "Use ghp_0123456789abcdef for search at level info.";
  f.brief = "Role.\n\n" + f.message + " Key: parent-secret-value";
  return run;
}

TEST(DisplayedVars, EnvValuesAreRedactedInAgentRunnersShape) {
  const auto shown = displayed_vars(run_with_secret().frozen);
  EXPECT_EQ(json::serialize(shown.at("token")), R"({"redacted":true,"source":"env","envName":"GITHUB_TOKEN"})");
  EXPECT_EQ(json::serialize(shown.at("inherited")),
            R"({"redacted":true,"source":"parent","envName":"DEPLOY_KEY","inheritedFromRunId":"p1"})");
  EXPECT_EQ(shown.at("level").at("redacted"), true);
  EXPECT_EQ(shown.at("feature"), "search");
  EXPECT_EQ(shown.at("count"), 3);
  EXPECT_TRUE(shown.at("none").is_null());
}

TEST(DisplayedVars, RunsWithoutSourcesShowTheirValues) {
  core::FrozenInputs f;
  f.vars = {{"a", "x"}};
  EXPECT_EQ(displayed_vars(f), f.vars);
}

TEST(RunDetail, NeverShowsAnEnvValue) {
  const auto run = run_with_secret();
  core::Task task;
  task.id = "t1";
  task.title = "Rotate ghp_0123456789abcdef";
  task.body = "with parent-secret-value";
  core::Session session;
  session.prompt = run.frozen.brief;
  const std::vector<core::Task> tasks{task};
  const std::vector<core::Session> sessions{session};
  const std::vector<core::Attempt> attempts;
  const auto detail = run_detail({run, tasks, sessions, attempts});
  const auto text = json::serialize(detail);
  EXPECT_EQ(text.find("ghp_0123456789abcdef"), std::string::npos) << text;
  EXPECT_EQ(text.find("parent-secret-value"), std::string::npos) << text;
  EXPECT_EQ(detail.at("vars"), detail.at("runtimeVars"));
  EXPECT_EQ(detail.at("vars").at("token").at("envName"), "GITHUB_TOKEN");
  EXPECT_EQ(detail.at("message"), "Use [redacted] for search at level info.");
  // Short values are hidden in vars, not cut out of text (they would match words).
  EXPECT_NE(detail.at("brief").as_string().find("level info"), std::string::npos);
  EXPECT_EQ(detail.at("tasks").at(0).at("title"), "Rotate [redacted]");
  EXPECT_EQ(detail.at("tasks").at(0).at("body"), "with [redacted]");
  EXPECT_EQ(detail.at("sessions").at(0).at("prompt"), detail.at("brief"));
  // The run itself keeps the real values: they are what the agent gets.
  EXPECT_EQ(run.frozen.vars.at("token"), "ghp_0123456789abcdef");
}

TEST(RedactText, ReplacesEveryOccurrenceLongestFirst) {
  core::FrozenInputs f;
  f.vars = {{"short", "secret12"}, {"long", "secret12345"}};
  f.var_sources = {{"short", {{"source", "env"}, {"redacted", true}}}, {"long", {{"source", "env"}, {"redacted", true}}}};
  EXPECT_EQ(redact_text(f, "secret12345 secret12 secret12secret12"),
            "[redacted] [redacted] [redacted][redacted]");
  EXPECT_EQ(redact_text(core::FrozenInputs{}, "plain"), "plain");
}

}  // namespace
}  // namespace agentry::events

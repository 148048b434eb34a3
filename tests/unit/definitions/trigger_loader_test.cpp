#include "definitions/loader.hpp"

#include "test_support.hpp"

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

#include <cstdlib>

namespace agentry::definitions {
namespace {
namespace json = boost::json;

using testing::dump;
using testing::fake_env;
using testing::has_problem;
using testing::problems_of;
using testing::TempDir;

class TriggerLoader : public ::testing::Test {
 protected:
  Roots roots() const {
    return Roots{dir.path() / "config", dir.path() / "project", fake_env({{"HOOK_SECRET", "s3cret"}})};
  }
  std::vector<Problem> problems(std::string_view name) const {
    auto result = load_trigger(roots(), name);
    EXPECT_FALSE(result.ok());
    return result.ok() ? std::vector<Problem>{} : problems_of(result.error());
  }
  void write(const std::string& name, const std::string& body) const {
    dir.write("config/triggers/" + name + ".yaml", "schemaVersion: 1\n" + body);
  }
  TempDir dir;
};

constexpr const char* minimal = "assignment: triage\nagent: bot\nsecretEnv: HOOK_SECRET\n";

TEST_F(TriggerLoader, LoadsEveryField) {
  write("issues", R"(description: New GitHub issues
assignment: triage
agent: bot
cwd: /srv/repo
secretEnv: HOOK_SECRET
scheme: github
vars:
  issue: /issue/number
  title: {from: /issue/title}
  labels: {from: /issue/labels, required: false}
  state: {from: /issue/state, default: open}
filter:
  /action: [opened, reopened]
  /issue/locked: false
dedupKey: "gh-{{header:X-GitHub-Delivery}}"
)");
  auto trigger = load_trigger(roots(), "issues");
  ASSERT_TRUE(trigger.ok()) << trigger.error().message;
  EXPECT_EQ(trigger->name, "issues");
  EXPECT_EQ(trigger->assignment, "triage");
  EXPECT_EQ(trigger->agent, "bot");
  EXPECT_EQ(trigger->cwd, "/srv/repo");
  EXPECT_EQ(trigger->scheme, TriggerScheme::github);
  ASSERT_EQ(trigger->vars.size(), 4u);
  EXPECT_EQ(trigger->vars[0].pointer, "/issue/number");
  EXPECT_TRUE(trigger->vars[0].required);
  EXPECT_FALSE(trigger->vars[2].required);
  EXPECT_FALSE(trigger->vars[3].required);
  EXPECT_EQ(trigger->vars[3].default_value, json::value("open"));
  ASSERT_EQ(trigger->filter.size(), 2u);
  EXPECT_EQ(trigger->filter[1].allowed.front(), json::value(false));
  EXPECT_EQ(effective_dedup_key(*trigger), "gh-{{header:X-GitHub-Delivery}}");
  EXPECT_TRUE(trigger->warnings.empty()) << dump(trigger->warnings);
}

TEST_F(TriggerLoader, DefaultsAreTheAgentrySchemeAndItsWindow) {
  write("plain", minimal);
  auto trigger = load_trigger(roots(), "plain");
  ASSERT_TRUE(trigger.ok()) << trigger.error().message;
  EXPECT_EQ(trigger->scheme, TriggerScheme::agentry);
  EXPECT_EQ(trigger->replay_window_seconds, 300);
  EXPECT_EQ(effective_dedup_key(*trigger), "{{header:X-Agentry-Signature}}");
  TriggerDefinition github = *trigger;
  github.scheme = TriggerScheme::github;
  EXPECT_EQ(effective_dedup_key(github), "{{header:X-GitHub-Delivery}}");
}

TEST_F(TriggerLoader, RequiredFieldsAndMistakesAreErrors) {
  write("empty", "");
  auto none = problems("empty");
  EXPECT_TRUE(has_problem(none, "triggers/empty.yaml", "assignment", "is required")) << dump(none);
  EXPECT_TRUE(has_problem(none, "triggers/empty.yaml", "agent", "is required")) << dump(none);
  EXPECT_TRUE(has_problem(none, "triggers/empty.yaml", "secretEnv", "is required")) << dump(none);

  write("bad", R"(assignment: triage
agent: bot
secretEnv: "s3cret value"
scheme: stripe
replayWindowSeconds: 0
cwd: relative/dir
vars:
  1bad: /x
  title: issue/title
  body: {required: false}
filter:
  action: opened
  /nested: {a: 1}
dedupKey: "{{issue.id}}"
filtr: {/action: opened}
)");
  auto bad = problems("bad");
  EXPECT_TRUE(has_problem(bad, "triggers/bad.yaml", "secretEnv", "not an environment variable name")) << dump(bad);
  EXPECT_TRUE(has_problem(bad, "triggers/bad.yaml", "scheme", "use agentry or github")) << dump(bad);
  EXPECT_TRUE(has_problem(bad, "triggers/bad.yaml", "replayWindowSeconds", "")) << dump(bad);
  EXPECT_TRUE(has_problem(bad, "triggers/bad.yaml", "cwd", "absolute")) << dump(bad);
  EXPECT_TRUE(has_problem(bad, "triggers/bad.yaml", "vars.1bad", "not a valid var name")) << dump(bad);
  EXPECT_TRUE(has_problem(bad, "triggers/bad.yaml", "vars.title", "not a JSON Pointer")) << dump(bad);
  EXPECT_TRUE(has_problem(bad, "triggers/bad.yaml", "vars.body.from", "is required")) << dump(bad);
  EXPECT_TRUE(has_problem(bad, "triggers/bad.yaml", "filter.action", "not a JSON Pointer")) << dump(bad);
  EXPECT_TRUE(has_problem(bad, "triggers/bad.yaml", "filter./nested", "a value or a list")) << dump(bad);
  EXPECT_TRUE(has_problem(bad, "triggers/bad.yaml", "dedupKey", "neither a JSON Pointer")) << dump(bad);
  // A misspelt key is an error, not a warning: `filtr` would otherwise accept every event.
  EXPECT_TRUE(has_problem(bad, "triggers/bad.yaml", "filtr", "")) << dump(bad);
}

TEST_F(TriggerLoader, AnUnsetSecretIsAWarningNotAnError) {
  write("later", "assignment: triage\nagent: bot\nsecretEnv: NOT_SET_YET\n");
  auto trigger = load_trigger(roots(), "later");
  ASSERT_TRUE(trigger.ok()) << trigger.error().message;
  EXPECT_TRUE(has_problem(trigger->warnings, "triggers/later.yaml", "secretEnv", "NOT_SET_YET is not set"))
      << dump(trigger->warnings);
}

TEST_F(TriggerLoader, OnlyTheConfigDirectoryDefinesTriggers) {
  dir.write("project/.agentry/triggers/sneaky.yaml", std::string("schemaVersion: 1\n") + minimal);
  Roots trusted = roots();
  trusted.project_trusted = true;
  EXPECT_EQ(load_trigger(trusted, "sneaky").error().code, core::ErrorCode::not_found);
  EXPECT_TRUE(list_triggers(trusted).entries.empty());
  // Names only: a path would reach files outside the config directory.
  EXPECT_EQ(load_trigger(roots(), "./project/.agentry/triggers/sneaky.yaml").error().code,
            core::ErrorCode::invalid_request);
  write("mine", minimal);
  auto listing = list_triggers(trusted);
  ASSERT_EQ(listing.entries.size(), 1u);
  EXPECT_EQ(listing.entries[0].name, "mine");
}

TEST(ExampleTrigger, TheExampleConfigsTriggerLoadsAndMapsAGithubIssue) {
  const char* source = std::getenv("AGENTRY_SOURCE_DIR");
  if (source == nullptr) GTEST_SKIP() << "AGENTRY_SOURCE_DIR is not set";
  const Roots roots{std::filesystem::path(source) / "config", std::nullopt,
                    fake_env({{"AGENTRY_TRIGGER_GITHUB_SECRET", "x"}})};
  auto trigger = load_trigger(roots, "github-issue");
  ASSERT_TRUE(trigger.ok()) << trigger.error().message;
  EXPECT_TRUE(trigger->warnings.empty()) << dump(trigger->warnings);
  EXPECT_TRUE(load_assignment(roots, trigger->assignment).ok());
  EXPECT_TRUE(load_agent(roots, trigger->agent).ok());
  const auto payload = json::parse(R"({"action":"opened","issue":{"number":3,"title":"t","body":null,
      "html_url":"https://github.com/o/r/issues/3"},"repository":{"full_name":"o/r"}})");
  EXPECT_EQ(filter_mismatch(*trigger, payload), std::nullopt);
  auto vars = map_trigger_vars(*trigger, payload);
  ASSERT_TRUE(vars.ok()) << vars.error().message;
  EXPECT_EQ(vars->at("repository"), json::value("o/r"));
  EXPECT_FALSE(vars->contains("body"));
}

TriggerDefinition issue_trigger() {
  TriggerDefinition t;
  t.vars = {TriggerVar{"issue", "/issue/number", true, std::nullopt},
            TriggerVar{"title", "/issue/title", true, std::nullopt},
            TriggerVar{"labels", "/issue/labels", false, std::nullopt},
            TriggerVar{"state", "/issue/state", false, json::value("open")}};
  t.filter = {TriggerCondition{"/action", {json::value("opened"), json::value("reopened")}},
              TriggerCondition{"/issue/number", {json::value(7), json::value(8)}}};
  return t;
}

TEST(TriggerPayload, VarsComeFromThePayloadAndMissingOnesAreNamed) {
  const auto payload = json::parse(R"({"action":"opened","issue":{"number":7,"title":"Crash","labels":["bug"]}})");
  auto vars = map_trigger_vars(issue_trigger(), payload);
  ASSERT_TRUE(vars.ok()) << vars.error().message;
  EXPECT_EQ(vars->at("issue"), json::value(7));
  EXPECT_EQ(vars->at("title"), json::value("Crash"));
  EXPECT_EQ(vars->at("labels"), json::value("[\"bug\"]"));
  EXPECT_EQ(vars->at("state"), json::value("open"));

  auto missing = map_trigger_vars(issue_trigger(), json::parse(R"({"issue":{"title":null}})"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, core::ErrorCode::validation);
  auto problems = problems_of(missing.error());
  EXPECT_TRUE(has_problem(problems, "", "vars.issue", "/issue/number")) << dump(problems);
  EXPECT_TRUE(has_problem(problems, "", "vars.title", "/issue/title")) << dump(problems);
  EXPECT_EQ(problems.size(), 2u) << dump(problems);
}

TEST(TriggerPayload, TheFilterNeedsEveryConditionToHold) {
  const auto trigger = issue_trigger();
  EXPECT_EQ(filter_mismatch(trigger, json::parse(R"({"action":"reopened","issue":{"number":8}})")), std::nullopt);
  auto closed = filter_mismatch(trigger, json::parse(R"({"action":"closed","issue":{"number":7}})"));
  ASSERT_TRUE(closed);
  EXPECT_NE(closed->find("/action is \"closed\""), std::string::npos) << *closed;
  auto absent = filter_mismatch(trigger, json::parse(R"({"action":"opened"})"));
  ASSERT_TRUE(absent);
  EXPECT_NE(absent->find("/issue/number is absent"), std::string::npos) << *absent;
  // A YAML number matches a JSON number however either is stored.
  EXPECT_EQ(filter_mismatch(trigger, json::parse(R"({"action":"opened","issue":{"number":7.0}})")), std::nullopt);
}

TEST(TriggerPayload, TheDedupKeyRendersFieldsAndHeaders) {
  const auto payload = json::parse(R"({"id":12,"repo":{"name":"a/b"},"x~y":{"p/q":"z"}})");
  HeaderLookup headers = [](std::string_view name) -> std::optional<std::string> {
    if (name == "X-GitHub-Delivery") return "d-1";
    return std::nullopt;
  };
  EXPECT_EQ(*render_dedup_key("{{/repo/name}}#{{ /id }}@{{header:X-GitHub-Delivery}}", payload, headers), "a/b#12@d-1");
  EXPECT_EQ(*render_dedup_key("{{/x~0y/p~1q}}", payload, headers), "z");
  for (const char* bad : {"{{/missing}}", "{{header:X-Other}}", "", "{{/id"}) {
    auto key = render_dedup_key(bad, payload, headers);
    EXPECT_FALSE(key.ok()) << bad;
    if (!key.ok()) {
      EXPECT_EQ(key.error().code, core::ErrorCode::validation) << bad;
    }
  }
  EXPECT_FALSE(render_dedup_key(std::string(max_dedup_key_bytes + 1, 'k'), payload, headers).ok());
  EXPECT_EQ(dedup_key_problem("{{header:X-Id}}-{{/a/b}}"), std::nullopt);
  EXPECT_TRUE(dedup_key_problem("{{a.b}}"));
  EXPECT_TRUE(dedup_key_problem("{{header:bad name}}"));
}

}  // namespace
}  // namespace agentry::definitions

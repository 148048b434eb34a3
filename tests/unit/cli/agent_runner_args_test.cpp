// agent-runner's command line as words and options (cli/compat/agent_runner_args.hpp),
// and the output helpers its commands share (cli/compat/agent_runner_output.hpp).
#include "cli/compat/agent_runner_args.hpp"
#include "cli/compat/agent_runner_output.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace agentry::cli::compat {
namespace {
namespace json = boost::json;

TEST(AgentRunnerArgs, WordsOptionsAndRepeats) {
  auto parsed = parse_agent_runner_args(
      {"run", "status", "r1", "--output-format=json", "--field", "status", "--field", "tasks", "--connect", "ws://x/"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->words, (std::vector<std::string>{"run", "status", "r1"}));
  EXPECT_EQ(parsed->value("--output-format"), "json");
  EXPECT_EQ(parsed->values("--field"), (std::vector<std::string>{"status", "tasks"}));
  EXPECT_EQ(parsed->others({"--output-format", "--field"}), std::vector<std::string>{});  // --connect always allowed
  EXPECT_EQ(parsed->others({"--field"}), std::vector<std::string>{"--output-format"});
}

TEST(AgentRunnerArgs, FlagsAndTheEndOfOptions) {
  auto parsed = parse_agent_runner_args({"run", "--agent", "a", "--detach", "--", "--not-an-option", "-h"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_TRUE(parsed->has("--detach"));
  EXPECT_FALSE(parsed->has("--help"));
  EXPECT_EQ(parsed->words, (std::vector<std::string>{"run", "--not-an-option", "-h"}));
  auto help = parse_agent_runner_args({"task", "-h"});
  ASSERT_TRUE(help.ok());
  EXPECT_TRUE(help->has("--help"));
  auto dash = parse_agent_runner_args({"attachment", "add", "r1", "-"});
  ASSERT_TRUE(dash.ok());
  EXPECT_EQ(dash->words.back(), "-");
}

TEST(AgentRunnerArgs, RefusalsNameTheOption) {
  auto unknown = parse_agent_runner_args({"run", "status", "r1", "--verbose"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("unknown option --verbose"), std::string::npos);
  auto left_out = parse_agent_runner_args({"init", "--backend-session-id=s1"});
  ASSERT_FALSE(left_out.ok());
  EXPECT_NE(left_out.error().message.find("--backend-session-id is agent-runner's"), std::string::npos)
      << left_out.error().message;
  EXPECT_TRUE(parse_agent_runner_args({"init", "--backend=codex"}).ok()) << "an ad-hoc agent's backend is served";
  EXPECT_TRUE(parse_agent_runner_args({"init", "--run-id=r1"}).ok()) << "re-initializing is served";
  auto missing = parse_agent_runner_args({"task", "set", "r1", "t1", "--status"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("--status needs a value"), std::string::npos);
  auto flag_value = parse_agent_runner_args({"run", "--detach=yes"});
  ASSERT_FALSE(flag_value.ok());
  EXPECT_NE(flag_value.error().message.find("--detach takes no value"), std::string::npos);
}

TEST(AgentRunnerOutput, FieldsAreProjectedInTheOrderNamed) {
  json::object detail{{"runId", "r1"}, {"status", "success"}, {"tasks", json::array{}}};
  auto projected = project_fields(detail, {"tasks", "status"});
  ASSERT_TRUE(projected.ok());
  EXPECT_EQ(json::serialize(*projected), R"({"tasks":[],"status":"success"})");
  auto missing = project_fields(detail, {"status", "nope", "nor"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("nope, nor"), std::string::npos) << missing.error().message;
}

TEST(AgentRunnerOutput, JsonIsIndentedByTwoSpaces) {
  json::value v{{"a", 1}, {"b", json::array{true, nullptr}}, {"c", json::object{}}, {"d", json::array{}}};
  EXPECT_EQ(pretty_json(v), "{\n  \"a\": 1,\n  \"b\": [\n    true,\n    null\n  ],\n  \"c\": {},\n  \"d\": []\n}\n");
  EXPECT_EQ(json::parse(pretty_json(v)), v);
}

TEST(AgentRunnerOutput, StatusLinesCountCompletedTasks) {
  json::object detail{{"runId", "r1"},
                      {"name", nullptr},
                      {"status", "running"},
                      {"agent", json::object{{"name", "coder"}}},
                      {"assignment", nullptr},
                      {"cwd", "/w"},
                      {"tasks", json::array{json::object{{"status", "completed"}}, json::object{{"status", "pending"}}}}};
  EXPECT_EQ(status_lines(detail), "Run: r1\nStatus: running\nAgent: coder\nCwd: /w\nTasks: 1/2 completed\n");
}

}  // namespace
}  // namespace agentry::cli::compat

// start() params -> the claude command line and environment.
#include "config.hpp"

#include <algorithm>
#include <regex>

#include <gtest/gtest.h>

#include "agentry/plugin_common/environment.hpp"

namespace agentry::claude {
namespace {

agentry::plugin::StartParams params(std::string config, std::string prompt = R"({"prompt":"hi"})") {
  agentry::plugin::StartParams p;
  p.run_id = "run-1";
  p.workspace_path = "/tmp";
  p.input_json = std::move(prompt);
  p.config_json = std::move(config);
  p.env = {"AGENTRY_RUN_ID=run-1"};
  return p;
}

bool has_sequence(const std::vector<std::string>& argv, std::initializer_list<std::string_view> seq) {
  return std::search(argv.begin(), argv.end(), seq.begin(), seq.end()) != argv.end();
}

TEST(ClaudeConfig, FreshSessionGetsStreamJsonFlagsAndAChosenSessionId) {
  ParsedLaunch parsed = parse_launch(params(
      R"({"backendConfig":{"binary":"/opt/claude","env":{"ANTHROPIC_BASE_URL":"http://127.0.0.1:9"}},"model":"opus","effort":"","unrestricted":true,"extraArgs":["--max-turns","3"],"launcher":null})"));
  ASSERT_TRUE(parsed.launch) << parsed.error;
  const LaunchSpec& spec = *parsed.launch;
  EXPECT_EQ(spec.argv.front(), "/opt/claude");
  EXPECT_TRUE(has_sequence(spec.argv, {"-p", "--input-format", "stream-json", "--output-format", "stream-json",
                                       "--verbose", "--include-partial-messages", "--permission-prompt-tool", "stdio"}));
  EXPECT_TRUE(has_sequence(spec.argv, {"--model", "opus"}));
  EXPECT_TRUE(has_sequence(spec.argv, {"--session-id", spec.session_id}));
  EXPECT_TRUE(std::regex_match(spec.session_id, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")));
  EXPECT_EQ(spec.argv.back(), "3") << "extraArgs come last";
  EXPECT_EQ(std::find(spec.argv.begin(), spec.argv.end(), "--effort"), spec.argv.end()) << "empty effort: no flag";
  EXPECT_TRUE(spec.unrestricted);
  EXPECT_FALSE(spec.resuming);
  EXPECT_EQ(spec.prompt, "hi");
  using agentry::plugin_common::find_variable;
  EXPECT_EQ(find_variable(spec.env, "ANTHROPIC_BASE_URL"), "http://127.0.0.1:9");
  EXPECT_EQ(find_variable(spec.env, "AGENTRY_RUN_ID"), "run-1");
  EXPECT_EQ(find_variable(spec.env, "DISABLE_TELEMETRY"), "1");
}

TEST(ClaudeConfig, TrafficOffVariablesCannotBeOverridden) {
  ParsedLaunch parsed = parse_launch(params(R"({"backendConfig":{"env":{"DISABLE_TELEMETRY":"0","CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC":"0"}}})"));
  ASSERT_TRUE(parsed.launch) << parsed.error;
  using agentry::plugin_common::find_variable;
  EXPECT_EQ(find_variable(parsed.launch->env, "DISABLE_TELEMETRY"), "1");
  EXPECT_EQ(find_variable(parsed.launch->env, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"), "1");
  EXPECT_EQ(find_variable(parsed.launch->env, "DISABLE_AUTOUPDATER"), "1");
  EXPECT_EQ(find_variable(parsed.launch->env, "DISABLE_ERROR_REPORTING"), "1");
}

TEST(ClaudeConfig, ResumeTokenResumesThatSession) {
  agentry::plugin::StartParams p = params(R"({"backendConfig":{"command":["/bin/claude","--debug"]},"effort":"high"})");
  p.resume_token = "0b1c2d3e-0000-4000-8000-000000000001";
  ParsedLaunch parsed = parse_launch(p);
  ASSERT_TRUE(parsed.launch) << parsed.error;
  EXPECT_TRUE(parsed.launch->resuming);
  EXPECT_TRUE(has_sequence(parsed.launch->argv, {"/bin/claude", "--debug", "-p"}));
  EXPECT_TRUE(has_sequence(parsed.launch->argv, {"--resume", "0b1c2d3e-0000-4000-8000-000000000001"}));
  EXPECT_TRUE(has_sequence(parsed.launch->argv, {"--effort", "high"}));
  EXPECT_EQ(std::find(parsed.launch->argv.begin(), parsed.launch->argv.end(), "--session-id"), parsed.launch->argv.end());
}

TEST(ClaudeConfig, LauncherPrefixesTheCommand) {
  ParsedLaunch parsed = parse_launch(
      params(R"({"backendConfig":{"binary":"claude"},"launcher":{"name":"nice","command":["nice","-n","5"],"env":{"X":"1"}}})"));
  ASSERT_TRUE(parsed.launch) << parsed.error;
  EXPECT_TRUE(has_sequence(parsed.launch->argv, {"nice", "-n", "5", "claude", "-p"}));
  EXPECT_EQ(agentry::plugin_common::find_variable(parsed.launch->env, "X"), "1");
}

TEST(ClaudeConfig, MistakesAreRefusedWithAReason) {
  EXPECT_NE(parse_launch(params(R"({"backendConfig":{"bianry":"x"}})")).error.find("unknown key 'bianry'"), std::string::npos);
  EXPECT_NE(parse_launch(params(R"({})", R"({"prompt":""})")).error.find("prompt is empty"), std::string::npos);
  EXPECT_NE(parse_launch(params(R"({"unrestricted":"yes"})")).error.find("unrestricted"), std::string::npos);
  agentry::plugin::StartParams p = params("{}");
  p.resume_token = "--dangerously-skip-permissions";
  EXPECT_NE(parse_launch(p).error.find("resume token"), std::string::npos);
}

// agent-runner's effort levels reach claude as agent-runner passes them.
TEST(ClaudeConfig, AgentRunnersEffortLevelsAreMappedForClaude) {
  auto argv = [](const std::string& level) {
    ParsedLaunch parsed =
        parse_launch(params(R"({"backendConfig":{"binary":"/opt/claude"},"effort":")" + level + R"("})"));
    EXPECT_TRUE(parsed.launch) << parsed.error;
    return parsed.launch ? parsed.launch->argv : std::vector<std::string>{};
  };
  const auto off = argv("off");
  EXPECT_EQ(std::find(off.begin(), off.end(), "--effort"), off.end()) << "off: no flag";
  EXPECT_TRUE(has_sequence(argv("minimal"), {"--effort", "low"}));
  EXPECT_TRUE(has_sequence(argv("xhigh"), {"--effort", "max"}));
  EXPECT_TRUE(has_sequence(argv("max"), {"--effort", "max"}));
  EXPECT_TRUE(has_sequence(argv("medium"), {"--effort", "medium"}));
}

}  // namespace
}  // namespace agentry::claude

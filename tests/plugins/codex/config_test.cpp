// start() params -> AttemptConfig: defaults, the app-server command line, the transports,
// and the errors a definition author sees.
#include "config.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <string>

namespace agentry::codex {
namespace {

namespace json = boost::json;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

agentry::plugin::StartParams params(json::object backend, json::object extra = {}) {
  agentry::plugin::StartParams p;
  p.run_id = "r1";
  p.workspace_path = "/tmp";
  p.input_json = R"({"prompt":"hi"})";
  json::object config{{"backendConfig", std::move(backend)}, {"model", "gpt-5.5"}, {"unrestricted", false}};
  for (auto& field : extra) config[field.key()] = field.value();
  p.config_json = json::serialize(config);
  p.env = {"AGENTRY_RUN_ID=r1"};
  return p;
}

TEST(CodexConfig, RestrictedRunsAskForApprovalInsideTheWorkspace) {
  ParsedConfig parsed = parse_config(params({{"command", "/bin/true"}}));
  ASSERT_TRUE(parsed.config) << parsed.error;
  EXPECT_EQ(parsed.config->approval_policy, "on-request");
  EXPECT_EQ(parsed.config->sandbox, "workspace-write");
  EXPECT_EQ(parsed.config->transport, Transport::stdio);
  // Commands run in a plain shell (a login shell's profile resets PATH), and the host's
  // variables reach it even past codex's default filter (names with TOKEN or KEY):
  // shell_environment_policy.set is applied after it.
  EXPECT_EQ(parsed.config->stdio.argv,
            (std::vector<std::string>{"/bin/true", "app-server", "-c", "allow_login_shell=false", "-c",
                                      "shell_environment_policy.set.AGENTRY_RUN_ID=\"r1\""}));
  EXPECT_THAT(parsed.config->stdio.env, Contains("AGENTRY_RUN_ID=r1"));
}

TEST(CodexConfig, TheHostsVariablesReachTheShellOfAServerThatIsNotOurs) {
  auto p = params({{"transport", "ws"}, {"url", "ws://127.0.0.1:9/"}});
  p.env = {"AGENTRY_RUN_ID=r1", "AGENTRY_DAEMON_TOKEN=agr_x", "AGENT_RUNNER_PARENT_RUN_ID=r1",
           "AGENT_RUNNER_CALL_DEPTH=1", "PATH=/opt/bin:/usr/bin"};
  ParsedConfig parsed = parse_config(p);
  ASSERT_TRUE(parsed.config) << parsed.error;
  const auto& config = parsed.config->thread_config;
  EXPECT_EQ(config.at("shell_environment_policy.set.AGENTRY_RUN_ID"), "r1");
  EXPECT_EQ(config.at("shell_environment_policy.set.AGENTRY_DAEMON_TOKEN"), "agr_x");
  // agent-runner's family too, for tools written for it.
  EXPECT_EQ(config.at("shell_environment_policy.set.AGENT_RUNNER_PARENT_RUN_ID"), "r1");
  EXPECT_EQ(config.at("shell_environment_policy.set.AGENT_RUNNER_CALL_DEPTH"), "1");
  EXPECT_FALSE(config.contains("shell_environment_policy.set.PATH")) << "the server's own PATH is left alone";
}

TEST(CodexConfig, UnrestrictedRunsNeverAsk) {
  ParsedConfig parsed = parse_config(params({{"command", "/bin/true"}}, {{"unrestricted", true}}));
  ASSERT_TRUE(parsed.config) << parsed.error;
  EXPECT_EQ(parsed.config->approval_policy, "never");
  EXPECT_EQ(parsed.config->sandbox, "danger-full-access");
  EXPECT_TRUE(parsed.config->unrestricted);
}

TEST(CodexConfig, OverridesBecomeDashCFlagsAndEnvironment) {
  ParsedConfig parsed = parse_config(params({{"command", "/bin/true"},
                                             {"codexHome", "/var/tmp/ch"},
                                             {"env", {{"MOCK_API_KEY", "dummy"}}},
                                             {"config",
                                              {{"model_providers.mock.base_url", "http://127.0.0.1:1/v1"},
                                               {"request_max_retries", 0},
                                               {"features", {{"plugins", false}}}}}},
                                            {{"extraArgs", json::array{"--strict-config"}}}));
  ASSERT_TRUE(parsed.config) << parsed.error;
  const auto& argv = parsed.config->stdio.argv;
  EXPECT_THAT(argv, Contains("model_providers.mock.base_url=\"http://127.0.0.1:1/v1\""));
  EXPECT_THAT(argv, Contains("request_max_retries=0"));
  EXPECT_THAT(argv, Contains("features={\"plugins\" = false}"));
  EXPECT_EQ(argv.back(), "--strict-config");
  EXPECT_THAT(parsed.config->stdio.env, Contains("CODEX_HOME=/var/tmp/ch"));
  EXPECT_THAT(parsed.config->stdio.env, Contains("MOCK_API_KEY=dummy"));
}

TEST(CodexConfig, ALoginShellIsTheAgentsChoiceOnlyWhenItsConfigSaysSo) {
  ParsedConfig parsed = parse_config(params({{"command", "/bin/true"}, {"config", {{"allow_login_shell", true}}}}));
  ASSERT_TRUE(parsed.config) << parsed.error;
  EXPECT_THAT(parsed.config->stdio.argv, Contains("allow_login_shell=true"));
  EXPECT_THAT(parsed.config->stdio.argv, Not(Contains("allow_login_shell=false")));
}

TEST(CodexConfig, LauncherWrapsTheBinary) {
  ParsedConfig parsed = parse_config(params(
      {{"command", "/bin/true"}}, {{"launcher", {{"name", "nice"}, {"command", json::array{"nice", "-n", "5"}}}}}));
  ASSERT_TRUE(parsed.config) << parsed.error;
  EXPECT_EQ(parsed.config->stdio.argv,
            (std::vector<std::string>{"nice", "-n", "5", "/bin/true", "app-server", "-c", "allow_login_shell=false",
                                      "-c", "shell_environment_policy.set.AGENTRY_RUN_ID=\"r1\""}));
  EXPECT_THAT(parsed.config->stdio.program, HasSubstr("/nice"));
}

TEST(CodexConfig, WebSocketAndUnixTargets) {
  ParsedConfig ws = parse_config(params({{"transport", "ws"}, {"url", "ws://127.0.0.1:4517"}, {"config", {{"a", 1}}}}));
  ASSERT_TRUE(ws.config) << ws.error;
  EXPECT_EQ(ws.config->socket.host, "127.0.0.1");
  EXPECT_EQ(ws.config->socket.port, "4517");
  EXPECT_EQ(ws.config->socket.path, "/");
  EXPECT_EQ(ws.config->thread_config.at("a"), 1);
  ParsedConfig v6 = parse_config(params({{"transport", "ws"}, {"url", "ws://[::1]:4517/rpc?x=1"}}));
  ASSERT_TRUE(v6.config) << v6.error;
  EXPECT_EQ(v6.config->socket.host, "::1");
  EXPECT_EQ(v6.config->socket.port, "4517");
  EXPECT_EQ(v6.config->socket.path, "/rpc?x=1");
  ParsedConfig uds = parse_config(params({{"transport", "uds"}, {"socket", "/run/codex.sock"}}));
  ASSERT_TRUE(uds.config) << uds.error;
  EXPECT_EQ(uds.config->socket.socket_path, "/run/codex.sock");
}

TEST(CodexConfig, MistakesAreExplained) {
  EXPECT_THAT(parse_config(params({{"codex", {{"transport", "ws"}}}})).error,
              HasSubstr("backendConfig already is the codex section"));
  EXPECT_THAT(parse_config(params({{"transport", "ws"}})).error, HasSubstr("backendConfig.url is required"));
  EXPECT_THAT(parse_config(params({{"transport", "ws"}, {"url", "http://x:1"}})).error, HasSubstr("ws://"));
  EXPECT_THAT(parse_config(params({{"transport", "ws"}, {"url", "ws://x/"}})).error, HasSubstr("needs a port"));
  EXPECT_THAT(parse_config(params({{"transport", "ws"}, {"url", "ws://user:key@x:1/"}})).error,
              HasSubstr("backendConfig.url"));
  EXPECT_THAT(parse_config(params({{"transport", "ws"}, {"url", "ws://x:1o/"}})).error, HasSubstr("backendConfig.url"));
  EXPECT_THAT(parse_config(params({{"transport", "uds"}, {"socket", "/s"}, {"codexHome", "/h"}})).error,
              HasSubstr("only (the server is not ours)"));
  EXPECT_THAT(parse_config(params({{"command", "/nonexistent/codex"}})).error, HasSubstr("not found"));
  EXPECT_THAT(parse_config(params({{"command", "/bin/true"}, {"sandbox", "open"}})).error,
              HasSubstr("backendConfig.sandbox must be one of"));
  agentry::plugin::StartParams empty_prompt = params({{"command", "/bin/true"}});
  empty_prompt.input_json = "{}";
  EXPECT_THAT(parse_config(empty_prompt).error, HasSubstr("prompt is empty"));
}

TEST(CodexConfig, AnExecutionEnvironmentNeedsAnAppServerWeStart) {
  // The host refuses this first; the plugin too, since a server that is not ours would
  // run the agent unconfined.
  const json::object environment{{"environment", {{"name", "sandbox"}, {"kind", "bubblewrap"}, {"network", "none"}}}};
  EXPECT_THAT(parse_config(params({{"transport", "ws"}, {"url", "ws://127.0.0.1:4517"}}, environment)).error,
              HasSubstr("execution environment cannot apply to codex over transport \"ws\""));
  EXPECT_THAT(parse_config(params({{"transport", "uds"}, {"socket", "/tmp/codex.sock"}}, environment)).error,
              HasSubstr("transport \"uds\""));
  EXPECT_TRUE(parse_config(params({{"command", "/bin/true"}}, environment)).config);
}

TEST(CodexConfig, TomlValues) {
  EXPECT_EQ(toml_value(json::value("a\"b")), "\"a\\\"b\"");
  EXPECT_EQ(toml_value(json::value(true)), "true");
  EXPECT_EQ(toml_value(json::array{1, "x"}), "[1, \"x\"]");
}

TEST(CodexConfig, TheReferencesTransportObjectIsAccepted) {
  ParsedConfig parsed = parse_config(params({{"transport", {{"type", "ws"}, {"url", "ws://127.0.0.1:4500/"}}}}));
  ASSERT_TRUE(parsed.config) << parsed.error;
  EXPECT_EQ(parsed.config->transport, Transport::ws);
  ParsedConfig twice = parse_config(
      params({{"url", "ws://127.0.0.1:1/"}, {"transport", {{"type", "ws"}, {"url", "ws://127.0.0.1:2/"}}}}));
  EXPECT_FALSE(twice.config);
  EXPECT_NE(twice.error.find("given twice"), std::string::npos) << twice.error;
  // agent-runner's Unix socket form: {type: uds, path}.
  ParsedConfig uds = parse_config(params({{"transport", {{"type", "uds"}, {"path", "/tmp/codex.sock"}}}}));
  ASSERT_TRUE(uds.config) << uds.error;
  EXPECT_EQ(uds.config->transport, Transport::uds);
  EXPECT_EQ(uds.config->socket.socket_path, "/tmp/codex.sock");
  ParsedConfig both = parse_config(
      params({{"socket", "/tmp/a.sock"}, {"transport", {{"type", "uds"}, {"path", "/tmp/b.sock"}}}}));
  EXPECT_FALSE(both.config);
  EXPECT_NE(both.error.find("transport.path and socket"), std::string::npos) << both.error;
  ParsedConfig odd = parse_config(params({{"transport", {{"type", "uds"}, {"where", "/tmp/x"}}}}));
  EXPECT_FALSE(odd.config);
  EXPECT_NE(odd.error.find("unknown key 'where'"), std::string::npos) << odd.error;
}

// agent-runner's effort levels reach codex as agent-runner sends them.
TEST(CodexConfig, AgentRunnersEffortLevelsAreMappedForCodex) {
  auto effort = [](const char* level) {
    ParsedConfig parsed = parse_config(params({{"command", "/bin/true"}}, {{"effort", level}}));
    EXPECT_TRUE(parsed.config) << parsed.error;
    return parsed.config ? parsed.config->effort : std::string("?");
  };
  EXPECT_EQ(effort("off"), "") << "off: none sent, codex's default";
  EXPECT_EQ(effort("max"), "xhigh");
  EXPECT_EQ(effort("minimal"), "minimal");
  EXPECT_EQ(effort("xhigh"), "xhigh");
  EXPECT_EQ(effort("high"), "high");
}

}  // namespace
}  // namespace agentry::codex

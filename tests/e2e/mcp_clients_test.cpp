// agentry as an MCP server for the REAL pinned agents, over both transports: the daemon's
// streamable HTTP endpoint (/mcp) and `agentry mcp --connect ws://...` on stdio, configured
// in Claude Code (--mcp-config) and in Codex (config.toml's [mcp_servers.agentry]). Each
// agent runs one-shot against the loopback mock model, whose script makes it call agentry's
// start_run tool; the run that starts (the mock backend's) must appear in the daemon, end
// success, and its id must come back to the model as the tool's result. Skipped loudly when
// a binary is not installed.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <chrono>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <memory>
#include <unistd.h>

#include "agent_processes.hpp"
#include "daemon_fixture.hpp"
#include "support/agent_binaries.hpp"
#include "support/codex_app_server.hpp"
#include "support/mock_model.hpp"
#include "support/subprocess.hpp"

namespace agentry::integration {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

class McpClientTest : public DaemonTest {
 protected:
  void start(std::optional<fs::path> binary, const std::string& name) {
    binary_ = std::move(binary);
    if (!binary_) {
      std::cerr << test::not_installed_banner(name);
      GTEST_SKIP() << test::not_installed_banner(name);
    }
    DaemonTest::SetUp();
    start_daemon();
    write_agent("echo", "mock", "{steps: [{say: 'started through mcp'}]}");
    mock_ = std::make_unique<test::MockModel>(dir_.path() / "model-requests.jsonl");
    agent_home_ = dir_.make_dir("agent-home");
  }
  void SetUp() override {}  // start() does it, once the binary is known
  void TearDown() override {
    if (!binary_) return;
    DaemonTest::TearDown();
    // The agent, and the stdio server it started, must be gone with it.
    expect_no_agent_left("HOME=" + agent_home_.string());
  }

  /// The prompt that makes the mock call the start tool under the client's name for it.
  std::string prompt(const std::string& tool_name) const {
    json::object arguments{{"agent", "echo"}, {"message", "go"}, {"callerCwd", work_.string()}};
    return "TOOL: " + tool_name + " " + json::serialize(arguments) + "\nSAY: the run is started";
  }

  /// Runs the agent to its exit (at most 120 s); returns its exit code, output in the test's dir.
  int run_agent(std::vector<std::string> argv, const test::EnvOverrides& env) {
    const fs::path out = dir_.path() / "agent.out", err = dir_.path() / "agent.err";
    test::SpawnOptions options;
    options.argv = std::move(argv);
    options.env = test::environment_with(env);
    options.cwd = work_;
    options.stdout_fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    options.stderr_fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    options.new_process_group = true;
    options.die_with_parent = true;
    const pid_t pid = test::spawn_process(options);
    ::close(options.stdout_fd);
    ::close(options.stderr_fd);
    auto code = test::wait_for_exit(pid, 120s);
    if (!code) {
      test::stop_process_group(pid, 2s);
      ADD_FAILURE() << "the agent did not finish in 120 s\n" << agent_output();
      return -1;
    }
    return *code;
  }
  std::string agent_output() const {
    auto read = [](const fs::path& p) {
      std::ifstream in(p);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      return text.size() > 6000 ? text.substr(text.size() - 6000) : text;
    };
    return "agent stdout:\n" + read(dir_.path() / "agent.out") + "\nagent stderr:\n" + read(dir_.path() / "agent.err");
  }

  /// The one run in the daemon: started by the agent through MCP, ended success. `actor`:
  /// who its audit says started it ("mcp" over /mcp; the CLI's client for `agentry mcp`).
  std::string expect_the_run_started_through_mcp_ends(const std::string& actor) {
    const auto runs = all_run_ids();
    EXPECT_EQ(runs.size(), 1u) << agent_output();
    if (runs.size() != 1) return {};
    const std::string run = runs.front();
    EXPECT_EQ(wait_until_settled(run, 60s), "success");
    const auto detail = get_run(run);
    EXPECT_EQ(detail.at("agent"), "echo");
    EXPECT_EQ(detail.at("cwd"), work_.string().c_str());
    const auto audit = client().get("/api/runs/" + run + "/audit").json();
    EXPECT_EQ(audit.at("events").at(0).at("actor"), actor.c_str()) << audit;
    return run;
  }
  /// The model's requests on `path` quote the run id: the tool's result reached the model.
  void expect_the_model_saw(const std::string& run, const std::string& path) {
    bool seen = false;
    for (const auto& body : mock_->request_bodies(path)) seen = seen || json::serialize(body).find(run) != std::string::npos;
    EXPECT_TRUE(seen) << "no model request quotes run " << run << "\n" << agent_output();
  }

  std::optional<fs::path> binary_;
  std::unique_ptr<test::MockModel> mock_;
  fs::path agent_home_;

  /// Claude Code 2.1.332 -p with `server` as its MCP server "agentry": its tools are offered
  /// to the model as mcp__agentry__<tool>, and --allowedTools lets the call through unasked.
  void claude_starts_a_run(const json::object& server, const std::string& actor) {
    json::object config{{"mcpServers", {{"agentry", server}}}};
    const fs::path mcp_config = dir_.write_file("mcp.json", json::serialize(config));
    const int code = run_agent(
        {binary_->string(), "-p", prompt("mcp__agentry__start_run"), "--mcp-config", mcp_config.string(),
         "--strict-mcp-config", "--allowedTools", "mcp__agentry__start_run", "--output-format", "stream-json",
         "--verbose"},
        {{"HOME", agent_home_.string()},
         {"ANTHROPIC_BASE_URL", mock_->anthropic_base_url()},
         {"ANTHROPIC_API_KEY", "dummy"},
         {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"},
         {"DISABLE_TELEMETRY", "1"},
         {"DISABLE_AUTOUPDATER", "1"},
         {"DISABLE_ERROR_REPORTING", "1"},
         {"CLAUDE_CODE_MAX_RETRIES", "0"}});
    EXPECT_EQ(code, 0) << agent_output();
    const std::string run = expect_the_run_started_through_mcp_ends(actor);
    if (!run.empty()) expect_the_model_saw(run, "/messages");
  }

  /// Codex 0.171.0 exec with `server` (TOML lines) as [mcp_servers.agentry]. With a model its
  /// bundled catalogue knows (gpt-5.5), codex defers MCP tools behind its tool_search tool;
  /// with fallback metadata ("mock-model") it offers them at once, as the namespace
  /// mcp__agentry, which the mock's TOOL: mcp__agentry__start_run calls.
  void codex_starts_a_run(const std::string& server, const std::string& actor) {
    test::CodexHome codex_home(*mock_);
    std::ofstream(codex_home.path() / "config.toml", std::ios::app) << "\n[mcp_servers.agentry]\n" << server;
    const int code = run_agent({binary_->string(), "exec", "--skip-git-repo-check", "-c", "model=\"mock-model\"",
                                prompt("mcp__agentry__start_run")},
                               {{"HOME", agent_home_.string()},
                                {"CODEX_HOME", codex_home.path().string()},
                                {test::kMockKeyName, test::kMockKeyValue}});
    EXPECT_EQ(code, 0) << agent_output();
    const std::string run = expect_the_run_started_through_mcp_ends(actor);
    if (!run.empty()) expect_the_model_saw(run, "/responses");
  }

  /// `agentry mcp --connect ws://<daemon>/` as a stdio server.
  std::string agentry() const { return test::DaemonProcess::binary_path().string(); }
  std::string ws_url() const { return "ws://127.0.0.1:" + std::to_string(daemon_->ws_port()) + "/"; }
};

TEST_F(McpClientTest, ClaudeCodeStartsARunThroughTheDaemonsHttpEndpoint) {
  start(test::claude_binary(), "claude");
  if (IsSkipped()) return;
  claude_starts_a_run({{"type", "http"}, {"url", daemon_->base_url() + "/mcp"}}, "mcp");
}

TEST_F(McpClientTest, ClaudeCodeStartsARunThroughAgentryMcpOnStdio) {
  start(test::claude_binary(), "claude");
  if (IsSkipped()) return;
  claude_starts_a_run({{"type", "stdio"}, {"command", agentry()}, {"args", {"mcp", "--connect", ws_url()}}}, "cli");
}

TEST_F(McpClientTest, CodexStartsARunThroughTheDaemonsHttpEndpoint) {
  start(test::codex_binary(), "codex");
  if (IsSkipped()) return;
  codex_starts_a_run("url = \"" + daemon_->base_url() + "/mcp\"\n", "mcp");
}

TEST_F(McpClientTest, CodexStartsARunThroughAgentryMcpOnStdio) {
  start(test::codex_binary(), "codex");
  if (IsSkipped()) return;
  codex_starts_a_run("command = " + json::serialize(json::value(agentry())) + "\nargs = [\"mcp\", \"--connect\", \"" +
                         ws_url() + "\"]\n",
                     "cli");
}

}  // namespace
}  // namespace agentry::integration

// The acp backend with REAL agents: `agentry serve` loads the acp plugin and runs the
// pinned Gemini CLI, Qwen Code, OpenCode and Claude Code (through Zed's ACP adapter), each
// against the loopback mock model in the API it speaks (tests/e2e/mock_model), driven
// only through the daemon's HTTP API. Each test has its own daemon home, run cwd, agent
// HOME and mock; an agent process left behind fails it. Skipped loudly when an agent is
// not installed (scripts/install-agents.sh).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "agent_run_test.hpp"
#include "support/agent_binaries.hpp"
#include "support/mock_model.hpp"

namespace agentry::integration {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

enum class AcpAgent { claude_acp, gemini, qwen, opencode };

struct Profile {
  const char* name;
  const char* key;        // paths.env
  const char* api_path;   // what its model requests look like in the mock's log
  bool reopens_sessions;  // its session/load or session/resume always finds the session it recorded
};

Profile profile(AcpAgent agent) {
  switch (agent) {
    case AcpAgent::claude_acp: return {"claude-acp", "AGENTRY_CLAUDE_ACP_BIN", "/messages", true};
    // Gemini CLI 0.61.0 offers session/load but answers it "No previous sessions found for
    // this project" for the sessions it recorded over ACP (their chat files hold the turn).
    case AcpAgent::gemini: return {"gemini", "AGENTRY_GEMINI_BIN", "GenerateContent", false};
    case AcpAgent::qwen: return {"qwen", "AGENTRY_QWEN_BIN", "/chat/completions", true};
    case AcpAgent::opencode: return {"opencode", "AGENTRY_OPENCODE_BIN", "/chat/completions", true};
  }
  return {};
}
void PrintTo(AcpAgent agent, std::ostream* out) { *out << profile(agent).name; }

class AcpAgents : public AgentRunTest, public ::testing::WithParamInterface<AcpAgent> {
 protected:
  void SetUp() override {
    const Profile p = profile(GetParam());
    binary_ = test::agent_binary(p.key);
    if (!binary_) {
      std::cerr << test::not_installed_banner_for_key(p.name, p.key);
      GTEST_SKIP() << test::not_installed_banner_for_key(p.name, p.key);
    }
    AgentRunTest::SetUp();
  }


  // backendConfig.acp for this agent: its command, and an environment (and settings files
  // in its HOME) that point it at the mock, keep it offline and make it ask before it runs
  // a command (so approvals reach the run; an unrestricted run grants them at once).
  json::object acp_config() {
    const std::string mock = mock_->anthropic_base_url();
    // Its own TMPDIR in the test's directory: OpenCode (a Bun binary) unpacks a 5 MB
    // library into TMPDIR at every start and never removes it.
    json::object env{{"HOME", home_.string()}, {"TMPDIR", dir_.make_dir("agent-tmp").string()}};
    json::array command{binary_->string()};
    switch (GetParam()) {
      case AcpAgent::claude_acp:
        env["IS_SANDBOX"] = "1";  // the tests run as root, where Claude Code wants it said
        env["ANTHROPIC_BASE_URL"] = mock;
        env["ANTHROPIC_API_KEY"] = "dummy";
        env["CLAUDE_CODE_MAX_RETRIES"] = "0";
        for (const char* off : {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "DISABLE_TELEMETRY", "DISABLE_AUTOUPDATER",
                                "DISABLE_ERROR_REPORTING"})
          env[off] = "1";
        if (auto claude = test::claude_binary()) env["CLAUDE_CODE_EXECUTABLE"] = claude->string();
        break;
      case AcpAgent::gemini:
        command.emplace_back("--acp");
        env["GEMINI_API_KEY"] = "dummy";
        env["GOOGLE_GEMINI_BASE_URL"] = mock;
        dir_.write_file("agent-home/.gemini/settings.json",
                        R"({"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false},)"
                        R"("general":{"enableAutoUpdate":false,"enableAutoUpdateNotification":false,"maxAttempts":1},)"
                        R"("model":{"name":"gemini-2.5-flash"},"security":{"auth":{"selectedType":"gemini-api-key"}}})");
        break;
      case AcpAgent::qwen:
        for (const char* arg : {"--acp", "--approval-mode", "default"}) command.emplace_back(arg);
        env["OPENAI_API_KEY"] = "dummy";
        env["OPENAI_BASE_URL"] = mock_->openai_base_url();
        dir_.write_file("agent-home/.qwen/settings.json",
                        R"({"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false},)"
                        R"("general":{"enableAutoUpdate":false},)"
                        R"("memory":{"enableManagedAutoMemory":false,"enableManagedAutoDream":false,"enableAutoSkill":false},)"
                        R"("security":{"auth":{"selectedType":"openai"}},)"
                        R"("model":{"name":"mock-model","generationConfig":{"maxRetries":0}},)"
                        R"("ui":{"enableFollowupSuggestions":false}})");
        break;
      case AcpAgent::opencode:
        command.emplace_back("acp");
        env["OPENCODE_CONFIG_CONTENT"] = json::serialize(json::object{
            {"$schema", "https://opencode.ai/config.json"},
            {"model", "mock/mock-model"},
            {"small_model", "mock/mock-model"},
            {"autoupdate", false},
            {"share", "disabled"},
            {"permission", {{"bash", "ask"}, {"edit", "ask"}}},
            {"provider",
             {{"mock",
               {{"npm", "@ai-sdk/openai-compatible"},
                {"name", "Mock"},
                {"options", {{"baseURL", mock_->openai_base_url()}, {"apiKey", "dummy"}}},
                {"models", {{"mock-model", {{"name", "Mock Model"}}}}}}}}}});
        for (const char* off : {"OPENCODE_DISABLE_MODELS_FETCH", "OPENCODE_DISABLE_AUTOUPDATE",
                                "OPENCODE_DISABLE_DEFAULT_PLUGINS", "OPENCODE_DISABLE_LSP_DOWNLOAD", "OPENCODE_DISABLE_SHARE"})
          env[off] = "1";
        // It installs its plugin SDK from the npm registry whatever it is told: the mock answers 404.
        env["npm_config_registry"] = mock + "/npm-registry-blocked/";
        break;
    }
    return {{"command", std::move(command)}, {"env", std::move(env)}, {"interruptGraceMs", 3000}};
  }

  void define(const std::string& name, bool unrestricted) {
    write_agent(name, "acp", json::serialize(acp_config()),
                std::string("unrestricted: ") + (unrestricted ? "true" : "false") + "\n");
  }

  std::optional<fs::path> binary_;
};

TEST_P(AcpAgents, AnApprovalAnsweredThroughTheApiLetsTheCommandRun) {
  define("asker", false);
  const std::string run = start_agent_run("asker", "SHELL: touch approved.txt\nSAY: approved and done");
  json::object approval;
  for (auto deadline = std::chrono::steady_clock::now() + 90s; approval.empty() && std::chrono::steady_clock::now() < deadline;) {
    const json::object detail = get_run(run);
    if (!detail.at("pendingApprovals").as_array().empty()) approval = detail.at("pendingApprovals").at(0).as_object();
    else if (detail.at("status") != "running") break;
    else std::this_thread::sleep_for(50ms);
  }
  ASSERT_FALSE(approval.empty()) << describe(run);
  EXPECT_FALSE(fs::exists(work_ / "approved.txt")) << "the command ran before the answer";
  const test::HttpResponse answered = client().post_json(
      "/api/runs/" + run + "/approvals/" + std::string(approval.at("approvalId").as_string()),
      json::object{{"decision", "approve"}});
  ASSERT_EQ(answered.status, 200) << answered.body;
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  EXPECT_TRUE(fs::exists(work_ / "approved.txt")) << describe(run);
}

TEST_P(AcpAgents, AbortMidTurnCancelsIt) {
  define("staller", true);
  const std::string run = start_agent_run("staller", "SAY: x\nSTALL: 60");
  for (auto deadline = std::chrono::steady_clock::now() + 90s;
       events_of(run, "session.checkpoint").empty() && std::chrono::steady_clock::now() < deadline;)
    std::this_thread::sleep_for(100ms);
  std::this_thread::sleep_for(1s);  // the prompt is with the model now
  const auto asked = std::chrono::steady_clock::now();
  const test::HttpResponse aborted = client().post_json("/api/runs/" + run + "/abort", json::object{{"reason", "enough"}});
  ASSERT_EQ(aborted.status, 200) << aborted.body;
  ASSERT_EQ(wait_settled(run), "aborted") << describe(run);
  EXPECT_LT(std::chrono::steady_clock::now() - asked, 15s);
}

// A command of its own, then the task loop: one agent start for both (these agents take
// seconds of CPU to start, the most of this suite's time).
TEST_P(AcpAgents, AnUnrestrictedRunsCommandsRunInItsCwdAndTheBareAgentryCommandReportsItsTasks) {
  define("tasker", true);
  const std::string run = run_two_tasks_with_the_bare_command("tasker", "SHELL: echo hi > out.txt");
  ASSERT_FALSE(run.empty());
  expect_tasks_done_in_one_attempt(run);
  EXPECT_TRUE(fs::exists(work_ / "out.txt")) << describe(run);
  EXPECT_FALSE(events_of(run, "tool.started").empty()) << describe(run);
  EXPECT_TRUE(events_of(run, "approval.request").empty()) << "an unrestricted run is never asked";
}

// A text turn, then a resume: one agent start fewer than two tests (these agents take
// seconds of CPU to start, the most of this suite's time).
TEST_P(AcpAgents, ATextTurnEndsInSuccessAndAResumeGoesOnInTheAgentsSession) {
  define("resumer", true);
  const std::string run = start_agent_run("resumer", "SAY: Hello through ACP.");
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  EXPECT_NE(said(run).find("Hello through ACP."), std::string::npos) << describe(run);
  EXPECT_FALSE(mock_->request_bodies(profile(GetParam()).api_path).empty()) << "the agent used its own API";
  ASSERT_TRUE(get_run(run).at("backendSessionId").is_string()) << describe(run);
  const std::string session(get_run(run).at("backendSessionId").as_string());
  const test::HttpResponse resumed = client().post_json("/api/runs/" + run + "/resume", json::object{{"message", "SAY: second"}});
  ASSERT_EQ(resumed.status, 200) << resumed.body;
  for (int i = 0; i < 100 && get_run(run).at("totalSessionCount").as_int64() < 2; ++i) std::this_thread::sleep_for(50ms);
  ASSERT_EQ(wait_settled(run), "success") << describe(run);
  EXPECT_NE(said(run).find("second"), std::string::npos) << describe(run);
  std::string notices;
  for (const json::object& notice : events_of(run, "notice")) notices += json::serialize(notice) + "\n";
  const bool reopened = get_run(run).at("backendSessionId").as_string() == session;
  if (profile(GetParam()).reopens_sessions) {
    EXPECT_TRUE(reopened) << describe(run);
  }
  // An agent that does not always find its session again (gemini finds it when it wrote
  // it to disk in time, which a loaded machine allows) goes on in a new one, and the
  // timeline says why; one that found it says nothing.
  if (reopened) {
    EXPECT_EQ(notices.find("could not reopen"), std::string::npos) << describe(run);
  } else {
    EXPECT_NE(notices.find("could not reopen session " + session), std::string::npos) << describe(run);
  }
}

INSTANTIATE_TEST_SUITE_P(RealAgents, AcpAgents,
                         ::testing::Values(AcpAgent::claude_acp, AcpAgent::gemini, AcpAgent::qwen, AcpAgent::opencode),
                         [](const ::testing::TestParamInfo<AcpAgent>& param) {
                           std::string name = profile(param.param).name;
                           std::erase(name, '-');
                           return name;
                         });

}  // namespace
}  // namespace agentry::integration

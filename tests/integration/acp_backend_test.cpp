// The acp backend through the daemon, with a real child speaking the Agent Client Protocol
// (tests/fixtures/acp/fake_acp_agent.py, whose prompt lines are directives): streamed text
// and a shell command in the timeline, an approval answered through the API, abort, a
// resume that loads the agent's own session, and the task loop with the bare `agentry`.
// tests/e2e drives the real ACP agents.
#include "daemon_fixture.hpp"
#include "support/source_tree.hpp"

#include <filesystem>
#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;
using namespace std::chrono_literals;

class AcpBackendTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    start_daemon({{"AGENTRY_INTERRUPT_GRACE_MS", "2000"}});
  }

  // An acp agent running the fake; its instructions (the prompt's first lines) are `body`.
  void define(const std::string& name, const std::string& body, const std::string& extra = "") {
    dir_.write_file("config/agents/" + name + "/agent.md",
                    "---\nschemaVersion: 1\nbackend: acp\n" + extra +
                        "backendConfig:\n  acp:\n    command: [python3, " +
                        test::source_file("tests/fixtures/acp/fake_acp_agent.py") + "]\n"
                        "    env: {FAKE_ACP_LOAD: '1', FAKE_ACP_STATE_DIR: " +
                        (dir_.path() / "acp-state").string() + "}\n---\n" + body + "\n");
  }

  std::string said(const std::string& run) {
    std::string out;
    for (const auto& e : timeline(run))
      if (e.at("kind") == "message.completed") out += std::string(e.at("payload").at("text").as_string()) + "|";
    return out;
  }
  std::vector<std::string> kinds(const std::string& run) {
    std::vector<std::string> out;
    for (const auto& e : timeline(run)) out.emplace_back(e.at("kind").as_string());
    return out;
  }
  bool has(const std::vector<std::string>& all, const char* kind) {
    return std::find(all.begin(), all.end(), kind) != all.end();
  }
};

TEST_F(AcpBackendTest, ARunStreamsTextRunsACommandAndResumesItsOwnSession) {
  define("fake", "SAY: hello from acp\nRUN: echo ran > ran.txt");
  const std::string run = start_agent_run("fake", "SAY: the message");
  ASSERT_EQ(wait_until_settled(run), "success") << json::serialize(get_run(run));
  EXPECT_NE(said(run).find("hello from acp|"), std::string::npos) << said(run);
  EXPECT_NE(said(run).find("the message|"), std::string::npos) << said(run);
  const auto history = kinds(run);
  EXPECT_TRUE(has(history, "tool.started"));
  EXPECT_TRUE(has(history, "tool.completed"));
  EXPECT_TRUE(std::filesystem::exists(work_ / "ran.txt")) << "the command ran in the run's cwd";
  const std::string session(get_run(run).at("backendSessionId").as_string());
  EXPECT_EQ(session.rfind("fake-", 0), 0u) << session;

  auto resumed = client().post_json("/api/runs/" + run + "/resume", json::object{{"message", "RECALL"}});
  ASSERT_EQ(resumed.status, 200) << resumed.body;
  ASSERT_EQ(wait_until_settled(run), "success");
  auto detail = get_run(run);
  EXPECT_EQ(detail.at("totalSessionCount").as_int64(), 2);
  EXPECT_EQ(detail.at("backendSessionId").as_string(), session) << "the agent's session goes on";
  EXPECT_NE(said(run).find("earlier: SAY: hello from acp"), std::string::npos) << said(run);
  EXPECT_EQ(said(run).find("replayed answer"), std::string::npos) << "the load's replay is not news";
}

TEST_F(AcpBackendTest, AnApprovalAnsweredThroughTheApiLetsTheCommandRun) {
  define("careful", "RUN: touch approved.txt", "unrestricted: false\n");
  const std::string run = start_agent_run("careful", "go");
  json::object approval;
  for (int i = 0; i < 300 && approval.empty(); ++i) {
    auto pending = get_run(run).at("pendingApprovals").as_array();
    if (!pending.empty()) approval = pending.at(0).as_object();
    else std::this_thread::sleep_for(50ms);
  }
  ASSERT_FALSE(approval.empty()) << "no approval appeared";
  EXPECT_EQ(approval.at("kind"), "command");
  EXPECT_EQ(approval.at("summary"), "touch approved.txt");
  EXPECT_FALSE(std::filesystem::exists(work_ / "approved.txt"));
  auto answered = client().post_json("/api/runs/" + run + "/approvals/" + std::string(approval.at("approvalId").as_string()),
                                     json::object{{"decision", "approve"}});
  ASSERT_EQ(answered.status, 200) << answered.body;
  EXPECT_EQ(wait_until_settled(run), "success");
  EXPECT_TRUE(std::filesystem::exists(work_ / "approved.txt"));
}

TEST_F(AcpBackendTest, AbortCancelsTheTurn) {
  define("waiter", "SAY: waiting\nWAIT");
  const std::string run = start_agent_run("waiter", "go");
  for (int i = 0; i < 300 && said(run).empty(); ++i) {
    bool streaming = false;
    for (const auto& e : timeline(run)) streaming = streaming || e.at("kind") == "session.checkpoint";
    if (streaming) break;
    std::this_thread::sleep_for(50ms);
  }
  auto aborted = client().post_json("/api/runs/" + run + "/abort", json::object{{"reason", "enough"}});
  ASSERT_EQ(aborted.status, 200) << aborted.body;
  EXPECT_EQ(wait_until_settled(run), "aborted");
}

TEST_F(AcpBackendTest, AnAgentThatRunsTheBareAgentryCommandReportsItsTasks) {
  define("tasker",
         "RUN: agentry task set plan --status completed --notes done\n"
         "RUN: agentry task set build --status completed --notes done\n"
         "RUN: agentry task set review/check --status completed --notes done");
  const std::string run = start_feature_run("tasker");
  ASSERT_FALSE(run.empty());
  wait_until_settled(run);
  expect_tasks_done_in_one_attempt(run);
}

}  // namespace
}  // namespace agentry::integration

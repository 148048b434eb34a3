// The cursor backend through the daemon, with a stand-in for cursor-agent that replays the
// documented stream (tests/fixtures/cursor/fake_cursor_agent.py): a replayed turn in the
// timeline, a resume of the same chat, abort, and the task loop with the bare `agentry`.
#include "daemon_fixture.hpp"
#include "support/source_tree.hpp"

#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;
using namespace std::chrono_literals;

class CursorBackendTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    start_daemon({{"AGENTRY_INTERRUPT_GRACE_MS", "3000"}});
  }
  void define(const std::string& name, const std::string& body) {
    dir_.write_file("config/agents/" + name + "/agent.md",
                    "---\nschemaVersion: 1\nbackend: cursor\nbackendConfig:\n  cursor:\n"
                    "    command: [python3, " +
                        test::source_file("tests/fixtures/cursor/fake_cursor_agent.py") + "]\n"
                    "    interruptGraceMs: 1000\n---\n" + body + "\n");
  }
  // The run and its timeline, for a failure's message.
  std::string story(const std::string& run) {
    std::string out = json::serialize(get_run(run));
    for (const auto& e : timeline(run)) out += "\n  " + json::serialize(e);
    return out;
  }
  int count(const std::string& run, const char* kind) {
    int n = 0;
    for (const auto& e : timeline(run)) n += e.at("kind") == kind;
    return n;
  }
};

TEST_F(CursorBackendTest, ATurnIsInTheTimelineAndAResumeGoesOnInTheSameChat) {
  define("cursor", "Fix the bug.");
  const std::string run = start_agent_run("cursor", "please");
  ASSERT_EQ(wait_until_settled(run), "success") << json::serialize(get_run(run));
  EXPECT_EQ(count(run, "message.completed"), 2);
  EXPECT_EQ(count(run, "tool.completed"), 3);
  EXPECT_GE(count(run, "plan"), 1);
  const std::string chat(get_run(run).at("backendSessionId").as_string());
  ASSERT_FALSE(chat.empty());
  auto resumed = client().post_json("/api/runs/" + run + "/resume", json::object{{"message", "again"}});
  ASSERT_EQ(resumed.status, 200) << resumed.body;
  ASSERT_EQ(wait_until_settled(run), "success");
  EXPECT_EQ(get_run(run).at("backendSessionId").as_string(), chat);
}

// cursor-agent cannot fork a chat, and a question through --resume would join the run's own.
TEST_F(CursorBackendTest, AQuestionIsRefusedRatherThanWrittenIntoTheRunsChat) {
  define("cursor", "Fix the bug.");
  const std::string run = start_agent_run("cursor", "Fix the bug.");
  ASSERT_EQ(wait_until_settled(run), "success") << story(run);
  const std::size_t events = timeline(run).size();
  auto asked = client().post_json("/api/runs/" + run + "/ask", json::object{{"question", "what did you do?"}});
  EXPECT_EQ(asked.status, 422) << asked.body;
  EXPECT_NE(asked.body.find("does not support ask"), std::string::npos) << asked.body;
  EXPECT_EQ(timeline(run).size(), events);
}

TEST_F(CursorBackendTest, AbortStopsAHangingTurn) {
  define("hanger", "HANG");
  const std::string run = start_agent_run("hanger", "HANG");
  for (int i = 0; i < 200 && count(run, "session.checkpoint") == 0; ++i) std::this_thread::sleep_for(50ms);
  auto aborted = client().post_json("/api/runs/" + run + "/abort", json::object{{"reason", "enough"}});
  ASSERT_EQ(aborted.status, 200) << aborted.body << "\n" << story(run);
  EXPECT_EQ(wait_until_settled(run), "aborted") << story(run);
}

TEST_F(CursorBackendTest, AnAgentThatRunsTheBareAgentryCommandReportsItsTasks) {
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

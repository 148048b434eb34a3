// The claude plugin through its C ABI, driving the REAL Claude Code binary (pinned
// 2.1.332) against the loopback mock model (tests/e2e/mock_model). Each test has its own
// HOME, workspace and mock; every process it starts is stopped before it ends.
// Time limits are generous upper bounds that only catch hangs.
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include <unistd.h>

#include <gtest/gtest.h>

#include "live_fixture.hpp"
#include "support/temp_dir.hpp"

namespace agentry::test {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

class ClaudeLive : public ::testing::Test {
 protected:
  void SetUp() override {
    binary_ = claude_binary();
    if (!binary_) {
      std::cerr << not_installed_banner("claude");
      GTEST_SKIP() << not_installed_banner("claude");
    }
    model_ = std::make_unique<MockModel>(scratch_.path() / "model-requests.jsonl");
  }

  std::unique_ptr<ClaudeInstance> instance() {
    return std::make_unique<ClaudeInstance>(*binary_, model_->anthropic_base_url(), home_.path());
  }

  static std::string text_of(const RecordedEvent& e) { return std::string(e.payload.at("text").as_string()); }

  std::optional<std::filesystem::path> binary_;
  TempDir home_;     // HOME for claude: its sessions go to .claude/projects here
  TempDir scratch_;  // the mock's request log
  std::unique_ptr<MockModel> model_;
};

TEST_F(ClaudeLive, TextTurnStreamsAndSucceeds) {
  auto claude = instance();
  const auto begun = std::chrono::steady_clock::now();
  ASSERT_EQ(claude->start({"SAY: Hello through agentry."}), AGENTRY_OK);
  const json::object finished = claude->wait_finished();
  const auto took = std::chrono::steady_clock::now() - begun;
  EXPECT_EQ(finished.at("outcome"), "success") << claude->dump();
  EXPECT_EQ(finished.at("exitCode"), 0);
  const auto completed = claude->events_of(AGENTRY_EVENT_MESSAGE_COMPLETED);
  ASSERT_EQ(completed.size(), 1u) << claude->dump();
  EXPECT_EQ(text_of(completed[0]), "Hello through agentry.");
  std::string streamed;
  for (const RecordedEvent& d : claude->events_of(AGENTRY_EVENT_MESSAGE_DELTA)) {
    EXPECT_TRUE(d.flags & AGENTRY_EVENT_FLAG_EPHEMERAL);
    streamed += text_of(d);
  }
  EXPECT_EQ(streamed, "Hello through agentry.");
  const auto checkpoints = claude->events_of(AGENTRY_EVENT_CHECKPOINT);
  ASSERT_EQ(checkpoints.size(), 1u);
  EXPECT_EQ(checkpoints[0].payload.at("resumeToken").as_string().size(), 36u);
  EXPECT_EQ(claude->events_of(AGENTRY_EVENT_USAGE).size(), 1u);
  std::cerr << "[claude] text attempt through the plugin (spawn to FINISHED): "
            << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms\n";
}

TEST_F(ClaudeLive, UnrestrictedBashCallWritesAFileAndIsRecorded) {
  auto claude = instance();
  ASSERT_EQ(claude->start({"SHELL: echo hi > out.txt\nSAY: wrote it", true}), AGENTRY_OK);
  const json::object finished = claude->wait_finished();
  EXPECT_EQ(finished.at("outcome"), "success") << claude->dump();
  EXPECT_EQ(read_file(claude->workspace() / "out.txt"), "hi\n");
  EXPECT_TRUE(claude->events_of(AGENTRY_EVENT_APPROVAL_REQUEST).empty());
  EXPECT_TRUE(claude->wait_for(AGENTRY_EVENT_NOTICE, "auto-approved Bash: echo hi > out.txt", 0s)) << claude->dump();
  const auto started = claude->events_of(AGENTRY_EVENT_TOOL_STARTED);
  const auto completed = claude->events_of(AGENTRY_EVENT_TOOL_COMPLETED);
  ASSERT_EQ(started.size(), 1u);
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_EQ(started[0].payload.at("command"), "echo hi > out.txt");
  EXPECT_EQ(completed[0].payload.at("toolCallId"), started[0].payload.at("toolCallId"));
  EXPECT_EQ(completed[0].payload.at("status"), "completed");
  EXPECT_TRUE(claude->wait_for(AGENTRY_EVENT_MESSAGE_COMPLETED, "wrote it", 0s));
}

TEST_F(ClaudeLive, ApprovedCommandRuns) {
  auto claude = instance();
  ASSERT_EQ(claude->start({"SHELL: echo yes > approved.txt\nSAY: ran it", false}), AGENTRY_OK);
  const auto request = claude->wait_for(AGENTRY_EVENT_APPROVAL_REQUEST);
  ASSERT_TRUE(request) << claude->dump();
  EXPECT_EQ(request->payload.at("kind"), "command");
  EXPECT_EQ(request->payload.at("summary"), "echo yes > approved.txt");
  EXPECT_FALSE(std::filesystem::exists(claude->workspace() / "approved.txt")) << "ran before the approval";
  EXPECT_EQ(claude->answer("not-an-approval", "approve"), AGENTRY_ERR_NOT_FOUND);
  EXPECT_EQ(claude->answer(request->payload.at("approvalId").as_string(), "approve"), AGENTRY_OK);
  const json::object finished = claude->wait_finished();
  EXPECT_EQ(finished.at("outcome"), "success") << claude->dump();
  EXPECT_EQ(read_file(claude->workspace() / "approved.txt"), "yes\n");
  EXPECT_EQ(claude->events_of(AGENTRY_EVENT_TOOL_COMPLETED).at(0).payload.at("status"), "completed");
}

TEST_F(ClaudeLive, DeniedCommandDoesNotRun) {
  auto claude = instance();
  ASSERT_EQ(claude->start({"SHELL: echo no > denied.txt\nSAY: after the denial", false}), AGENTRY_OK);
  const auto request = claude->wait_for(AGENTRY_EVENT_APPROVAL_REQUEST);
  ASSERT_TRUE(request) << claude->dump();
  EXPECT_EQ(claude->answer(request->payload.at("approvalId").as_string(), "deny"), AGENTRY_OK);
  const json::object finished = claude->wait_finished();
  EXPECT_EQ(finished.at("outcome"), "success") << claude->dump();
  EXPECT_FALSE(std::filesystem::exists(claude->workspace() / "denied.txt"));
  const auto completed = claude->events_of(AGENTRY_EVENT_TOOL_COMPLETED);
  ASSERT_EQ(completed.size(), 1u) << claude->dump();
  EXPECT_EQ(completed[0].payload.at("status"), "declined");
}

TEST_F(ClaudeLive, InterruptStopsAStalledTurn) {
  auto claude = instance();
  ASSERT_EQ(claude->start({"SAY: Starting a long answer\nSTALL: 30\nSAY: never sent"}), AGENTRY_OK);
  ASSERT_TRUE(claude->wait_for(AGENTRY_EVENT_MESSAGE_DELTA)) << claude->dump();
  const auto begun = std::chrono::steady_clock::now();
  EXPECT_EQ(claude->interrupt("user asked"), AGENTRY_OK);
  EXPECT_EQ(claude->interrupt("again"), AGENTRY_OK);
  const json::object finished = claude->wait_finished(20s);
  const auto took = std::chrono::steady_clock::now() - begun;
  EXPECT_EQ(finished.at("outcome"), "interrupted") << claude->dump();
  EXPECT_EQ(finished.at("message"), "interrupted: user asked");
  EXPECT_LT(took, 4s) << "Claude answered the interrupt itself; the grace kill should not be needed";
  EXPECT_FALSE(claude->wait_for(AGENTRY_EVENT_MESSAGE_COMPLETED, "never sent", 0s));
  EXPECT_EQ(finished.at("exitCode"), 1) << "claude's exit code mirrors the interrupted result";
  EXPECT_FALSE(process_alive(claude->child_pid())) << "FINISHED comes after the process is reaped";
  std::cerr << "[claude] interrupt to FINISHED: " << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
            << " ms\n";
}


TEST_F(ClaudeLive, InterruptDuringACommandStopsTheCommand) {
  auto claude = instance();
  const std::string marker = "agentry-claude-marker-" + std::to_string(::getpid());
  // Claude blocks a plain `sleep 30` (it suggests run_in_background); tail waits as long.
  ASSERT_EQ(claude->start({"SHELL: timeout 30 tail -f /dev/null; echo " + marker}), AGENTRY_OK);
  ASSERT_TRUE(claude->wait_for(AGENTRY_EVENT_TOOL_STARTED)) << claude->dump();
  for (int i = 0; i < 100 && live_processes_naming(marker) == 0; ++i) std::this_thread::sleep_for(50ms);
  ASSERT_GT(live_processes_naming(marker), 0) << "the command never started:\n" << claude->dump();
  EXPECT_EQ(claude->interrupt("stop the command"), AGENTRY_OK);
  const json::object finished = claude->wait_finished(20s);
  EXPECT_EQ(finished.at("outcome"), "interrupted") << claude->dump();
  for (int i = 0; i < 100 && live_processes_naming(marker) > 0; ++i) std::this_thread::sleep_for(20ms);
  EXPECT_EQ(live_processes_naming(marker), 0) << "the interrupted command is still running";
}

TEST_F(ClaudeLive, ResumeInANewInstanceContinuesTheSession) {
  std::string token;
  {
    auto first = instance();
    ASSERT_EQ(first->start({"SAY: First process reply."}), AGENTRY_OK);
    ASSERT_EQ(first->wait_finished().at("outcome"), "success") << first->dump();
    token = std::string(first->events_of(AGENTRY_EVENT_CHECKPOINT).at(0).payload.at("resumeToken").as_string());
  }
  auto second = instance();
  Turn turn{"SAY: Second process reply."};
  turn.resume_token = token;
  ASSERT_EQ(second->start(turn), AGENTRY_OK);
  EXPECT_EQ(second->wait_finished().at("outcome"), "success") << second->dump();
  const auto checkpoints = second->events_of(AGENTRY_EVENT_CHECKPOINT);
  ASSERT_EQ(checkpoints.size(), 1u);
  EXPECT_EQ(checkpoints[0].payload.at("resumeToken"), json::value(token)) << "Claude 2.1.332 keeps the session id on --resume";
  const auto requests = model_->request_bodies("/messages");
  ASSERT_FALSE(requests.empty());
  const std::string last = json::serialize(requests.back().at("messages"));
  EXPECT_NE(last.find("First process reply."), std::string::npos) << "the earlier turn is not in the request";
  EXPECT_NE(last.find("Second process reply."), std::string::npos);
}

TEST_F(ClaudeLive, FollowUpDuringATurnRunsAsTheNextTurn) {
  auto claude = instance();
  ASSERT_EQ(claude->start({"SAY: first answer\nSTALL: 2\nSAY: first done"}), AGENTRY_OK);
  ASSERT_TRUE(claude->wait_for(AGENTRY_EVENT_MESSAGE_DELTA)) << claude->dump();
  EXPECT_EQ(claude->send_message("SAY: follow-up answer"), AGENTRY_OK);
  ASSERT_TRUE(claude->wait_for(AGENTRY_EVENT_NOTICE, "queued by claude as its next turn", 5s)) << claude->dump();
  const json::object finished = claude->wait_finished();
  EXPECT_EQ(finished.at("outcome"), "success") << claude->dump();
  // Nothing is cut off: the first turn's text and the queued turn's reply both arrived
  // before FINISHED, in that order.
  std::vector<std::string> texts;
  for (const RecordedEvent& e : claude->events_of(AGENTRY_EVENT_MESSAGE_COMPLETED)) texts.push_back(text_of(e));
  ASSERT_GE(texts.size(), 2u) << claude->dump();
  EXPECT_NE(texts.front().find("first answer"), std::string::npos) << claude->dump();
  EXPECT_EQ(texts.back(), "follow-up answer") << claude->dump();
  EXPECT_EQ(claude->events_of(AGENTRY_EVENT_USAGE).size(), 2u) << "one result per turn";
  EXPECT_FALSE(process_alive(claude->child_pid()));
}

TEST_F(ClaudeLive, InterruptCoversAQueuedFollowUp) {
  auto claude = instance();
  ASSERT_EQ(claude->start({"SAY: working on it\nSTALL: 30\nSAY: never sent"}), AGENTRY_OK);
  ASSERT_TRUE(claude->wait_for(AGENTRY_EVENT_MESSAGE_DELTA)) << claude->dump();
  ASSERT_EQ(claude->send_message("SAY: queued reply\nSTALL: 30"), AGENTRY_OK);
  ASSERT_TRUE(claude->wait_for(AGENTRY_EVENT_NOTICE, "queued by claude", 5s));
  EXPECT_EQ(claude->interrupt("stop everything"), AGENTRY_OK);
  EXPECT_EQ(claude->send_message("SAY: too late"), AGENTRY_ERR_INVALID_STATE);
  const json::object finished = claude->wait_finished(20s);
  EXPECT_EQ(finished.at("outcome"), "interrupted") << claude->dump();
  EXPECT_EQ(finished.at("message"), "interrupted: stop everything");
  EXPECT_FALSE(claude->wait_for(AGENTRY_EVENT_MESSAGE_COMPLETED, "never sent", 0s));
  EXPECT_FALSE(process_alive(claude->child_pid()));
}

TEST_F(ClaudeLive, ApiErrorEndsTheAttemptInError) {
  auto claude = instance();
  ASSERT_EQ(claude->start({"FAIL: 500"}), AGENTRY_OK);
  const json::object finished = claude->wait_finished();
  EXPECT_EQ(finished.at("outcome"), "error") << claude->dump();
  EXPECT_NE(std::string(finished.at("message").as_string()).find("API Error: 500"), std::string::npos);
  EXPECT_EQ(finished.at("exitCode"), 1);
}

}  // namespace
}  // namespace agentry::test

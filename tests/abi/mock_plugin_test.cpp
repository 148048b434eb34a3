// The mock backend driven through the C ABI: its step language, interrupt, input,
// approvals and resume tokens (plugins/mock/script.hpp documents the steps).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <utility>

#include "abi/plugin_fixture.hpp"

namespace agentry::abi_test {
namespace {
using namespace std::chrono_literals;

std::string steps(const std::string& array) { return R"({"backendConfig":{"steps":)" + array + "}}"; }

std::vector<RecordedEvent> of_type(const std::vector<RecordedEvent>& events, uint16_t type) {
  std::vector<RecordedEvent> out;
  for (const auto& e : events)
    if (e.type == type) out.push_back(e);
  return out;
}

class MockPlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(plugin_.ok()) << "cannot load " << mock_plugin_path();
    ASSERT_TRUE(in_.created());
    ASSERT_EQ(in_.init(), AGENTRY_OK);
  }
  agentry_status_t start(const std::string& config, const std::string& prompt = "") {
    StartOptions o;
    o.config_json = config;
    o.prompt = prompt;
    return in_.start(o);
  }
  std::vector<RecordedEvent> events() const { return in_.host.events(); }

  InitializedPlugin plugin_{mock_plugin_path()};
  Instance in_{plugin_, "mock"};
};

TEST_F(MockPlugin, SayStreamsDeltasThenCompletes) {
  ASSERT_EQ(start(steps(R"([{"say": "héllo wörld, mock", "deltas": 5}])")), AGENTRY_OK);
  ASSERT_EQ(in_.host.wait_outcome(), "success");
  const auto all = events();
  EXPECT_EQ(all.front().type, AGENTRY_EVENT_CHECKPOINT);
  EXPECT_EQ(all.front().str("resumeToken"), "mock-run-1/s0");
  const auto deltas = of_type(all, AGENTRY_EVENT_MESSAGE_DELTA);
  ASSERT_EQ(deltas.size(), 5u);
  std::string joined;
  for (const auto& d : deltas) {
    EXPECT_EQ(d.flags, uint32_t{AGENTRY_EVENT_FLAG_EPHEMERAL});
    joined += d.str("text");
  }
  EXPECT_EQ(joined, "héllo wörld, mock");
  const auto done = of_type(all, AGENTRY_EVENT_MESSAGE_COMPLETED);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].str("text"), "héllo wörld, mock");
  EXPECT_EQ(done[0].str("itemId"), deltas[0].str("itemId"));
  EXPECT_EQ(all.back().type, AGENTRY_EVENT_FINISHED);
  EXPECT_EQ(all.back().flags, uint32_t{AGENTRY_EVENT_FLAG_TERMINAL});
  uint64_t last = 0;
  for (const auto& e : all) EXPECT_GT(e.seq, std::exchange(last, e.seq));
}

TEST_F(MockPlugin, SayIsPacedByRateHz) {
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(start(steps(R"([{"say": "abcdef", "deltas": 6, "rateHz": 50}])")), AGENTRY_OK);
  ASSERT_EQ(in_.host.wait_outcome(), "success");
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 90ms);  // 5 gaps of 20 ms
}

TEST_F(MockPlugin, NoScriptEchoesThePrompt) {
  ASSERT_EQ(start("{}", "just say this"), AGENTRY_OK);
  ASSERT_EQ(in_.host.wait_outcome(), "success");
  EXPECT_EQ(in_.host.wait_event(AGENTRY_EVENT_MESSAGE_COMPLETED).str("text"), "just say this");
}

TEST_F(MockPlugin, PromptLinesAreAScript) {
  ASSERT_EQ(start("{}", "Do things.\n@mock {\"notice\": \"one\"}\nprose\n@mock {\"fail\": \"two\"}\n"), AGENTRY_OK);
  ASSERT_EQ(in_.host.wait_outcome(), "error");
  EXPECT_EQ(in_.host.wait_event(AGENTRY_EVENT_NOTICE).str("message"), "one");
  EXPECT_EQ(events().back().str("message"), "two");
}

TEST_F(MockPlugin, EventsAreNumberedAndSurviveBusy) {
  in_.host.set_busy_every(3);
  ASSERT_EQ(start(steps(R"([{"events": 300}, {"events": 20, "kind": "delta"}])")), AGENTRY_OK);
  ASSERT_EQ(in_.host.wait_outcome(), "success");
  const auto notices = of_type(events(), AGENTRY_EVENT_NOTICE);
  ASSERT_EQ(notices.size(), 300u);
  for (std::size_t i = 0; i < notices.size(); ++i) {
    EXPECT_EQ(notices[i].object().at("index").as_int64(), static_cast<int64_t>(i + 1));
    EXPECT_EQ(notices[i].flags, 0u);
  }
  const auto deltas = of_type(events(), AGENTRY_EVENT_MESSAGE_DELTA);
  ASSERT_EQ(deltas.size(), 20u);
  EXPECT_EQ(deltas[19].str("text"), "event 20");
  EXPECT_EQ(deltas[19].flags, uint32_t{AGENTRY_EVENT_FLAG_EPHEMERAL});
}

TEST_F(MockPlugin, ToolReasoningUsageAndCheckpointSteps) {
  ASSERT_EQ(start(steps(R"([{"reasoning": "thinking"},
                            {"tool": {"command": "ls", "output": "a\nb", "exitCode": 2}},
                            {"usage": {"inputTokens": 10, "outputTokens": 3}},
                            {"checkpoint": "tok-2"}])")),
            AGENTRY_OK);
  ASSERT_EQ(in_.host.wait_outcome(), "success");
  const auto all = events();
  EXPECT_EQ(of_type(all, AGENTRY_EVENT_REASONING).at(0).str("text"), "thinking");
  const auto started = of_type(all, AGENTRY_EVENT_TOOL_STARTED).at(0);
  const auto ended = of_type(all, AGENTRY_EVENT_TOOL_COMPLETED).at(0);
  EXPECT_EQ(started.str("command"), "ls");
  EXPECT_EQ(ended.str("toolCallId"), started.str("toolCallId"));
  EXPECT_EQ(ended.str("status"), "failed");
  EXPECT_EQ(ended.object().at("exitCode").as_int64(), 2);
  EXPECT_EQ(of_type(all, AGENTRY_EVENT_USAGE).at(0).object().at("outputTokens").as_int64(), 3);
  EXPECT_EQ(of_type(all, AGENTRY_EVENT_CHECKPOINT).back().str("resumeToken"), "tok-2");
}

TEST_F(MockPlugin, InterruptEndsAHang) {
  ASSERT_EQ(start(steps(R"([{"notice": "before"}, {"hang": true}, {"notice": "never"}])")), AGENTRY_OK);
  in_.host.wait_event(AGENTRY_EVENT_NOTICE);
  EXPECT_EQ(in_.host.wait_outcome(100ms), "");
  EXPECT_EQ(in_.send(AGENTRY_INPUT_MESSAGE, "{\"text\": 1}"), AGENTRY_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(in_.interrupt("user asked"), AGENTRY_OK);
  ASSERT_EQ(in_.interrupt("again"), AGENTRY_OK);  // idempotent
  ASSERT_EQ(in_.host.wait_outcome(2s), "interrupted");
  EXPECT_EQ(events().back().str("message"), "user asked");
  EXPECT_EQ(of_type(events(), AGENTRY_EVENT_NOTICE).size(), 1u);
  EXPECT_EQ(in_.send(AGENTRY_INPUT_MESSAGE, R"({"text": "late"})"), AGENTRY_ERR_INVALID_STATE);
}

TEST_F(MockPlugin, InterruptCutsASleepShort) {
  ASSERT_EQ(start(steps(R"([{"sleepMs": 60000}])")), AGENTRY_OK);
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(in_.interrupt("enough"), AGENTRY_OK);
  ASSERT_EQ(in_.host.wait_outcome(2s), "interrupted");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
}

TEST_F(MockPlugin, AskWaitsForApproval) {
  ASSERT_EQ(start(steps(R"([{"ask": {"summary": "rm -rf build", "kind": "command"}}, {"say": "done"}])")),
            AGENTRY_OK);
  const auto request = in_.host.wait_event(AGENTRY_EVENT_APPROVAL_REQUEST);
  const std::string id = request.str("approvalId");
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(request.str("summary"), "rm -rf build");
  EXPECT_EQ(in_.send(AGENTRY_INPUT_APPROVAL, R"({"approvalId": "other", "decision": "approve"})"),
            AGENTRY_ERR_NOT_FOUND);
  EXPECT_EQ(in_.send(AGENTRY_INPUT_APPROVAL, R"({"approvalId": ")" + id + R"(", "decision": "maybe"})"),
            AGENTRY_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(in_.send(AGENTRY_INPUT_APPROVAL, R"({"approvalId": ")" + id + R"(", "decision": "approve"})"),
            AGENTRY_OK);
  ASSERT_EQ(in_.host.wait_outcome(), "success");
  EXPECT_EQ(of_type(events(), AGENTRY_EVENT_NOTICE).at(0).str("message"), "approval " + id + ": approve");
}

TEST_F(MockPlugin, DeniedApprovalFailsTheAttempt) {
  ASSERT_EQ(start(steps(R"([{"ask": {"summary": "push"}}, {"say": "never"}])")), AGENTRY_OK);
  const std::string id = in_.host.wait_event(AGENTRY_EVENT_APPROVAL_REQUEST).str("approvalId");
  ASSERT_EQ(in_.send(AGENTRY_INPUT_APPROVAL, R"({"approvalId": ")" + id + R"(", "decision": "deny"})"), AGENTRY_OK);
  ASSERT_EQ(in_.host.wait_outcome(), "error");
  EXPECT_TRUE(of_type(events(), AGENTRY_EVENT_MESSAGE_COMPLETED).empty());
}

TEST_F(MockPlugin, WaitInputEchoesTheMessage) {
  ASSERT_EQ(start(steps(R"([{"waitInput": true}])")), AGENTRY_OK);
  ASSERT_EQ(in_.send(AGENTRY_INPUT_MESSAGE, R"({"text": "follow-up"})"), AGENTRY_OK);
  ASSERT_EQ(in_.host.wait_outcome(), "success");
  EXPECT_EQ(in_.host.wait_event(AGENTRY_EVENT_MESSAGE_COMPLETED).str("text"), "follow-up");
}

TEST_F(MockPlugin, ResumeTokenRoundTrip) {
  ASSERT_EQ(start(steps(R"([{"say": "first"}])")), AGENTRY_OK);
  ASSERT_EQ(in_.host.wait_outcome(), "success");
  const std::string token = in_.host.wait_event(AGENTRY_EVENT_CHECKPOINT).str("resumeToken");
  const uint64_t last_seq = events().back().seq;
  EXPECT_EQ(token, "mock-run-1/s0");

  StartOptions again;
  again.config_json = steps(R"([{"say": "second"}])");
  again.resume_token = token;
  again.session_id = "run-1/s1";
  again.attempt = 2;
  ASSERT_EQ(in_.start(again), AGENTRY_OK);
  ASSERT_TRUE(in_.host.wait_until([](const auto& e) { return e.size() >= 2 && e.back().type == AGENTRY_EVENT_FINISHED &&
                                                              e.back().str("outcome") == "success" &&
                                                              of_type(e, AGENTRY_EVENT_FINISHED).size() == 2; }));
  const auto all = events();
  const auto checkpoints = of_type(all, AGENTRY_EVENT_CHECKPOINT);
  ASSERT_EQ(checkpoints.size(), 2u);
  EXPECT_EQ(checkpoints[1].str("resumeToken"), token);
  EXPECT_GT(checkpoints[1].seq, last_seq);  // seq continues across attempts
  EXPECT_EQ(of_type(all, AGENTRY_EVENT_NOTICE).at(0).str("message"), "resumed " + token);
}

TEST_F(MockPlugin, StartWhileRunningIsRefused) {
  ASSERT_EQ(start(steps(R"([{"hang": true}])")), AGENTRY_OK);
  EXPECT_EQ(start(steps("[]")), AGENTRY_ERR_INVALID_STATE);
  in_.interrupt("done");
  EXPECT_EQ(in_.host.wait_outcome(), "interrupted");
}

TEST_F(MockPlugin, MalformedScriptFinishesInError) {
  ASSERT_EQ(start(steps(R"([{"say": "x", "delta": 3}])")), AGENTRY_OK);
  ASSERT_EQ(in_.host.wait_outcome(), "error");
  EXPECT_NE(events().back().str("message").find("step 1"), std::string::npos) << events().back().str("message");
}

TEST_F(MockPlugin, ExecRunsInTheWorkspaceWithTheEnvironment) {
  const auto dir = std::filesystem::temp_directory_path();
  StartOptions o;
  o.config_json = steps(R"([{"exec": ["sh", "-c", "echo $AGENTRY_ABI_VAR; pwd; echo oops >&2; exit 3"]}])");
  o.env = {"AGENTRY_ABI_VAR=from-the-host"};
  o.workspace = dir.string();
  ASSERT_EQ(in_.start(o), AGENTRY_OK);
  ASSERT_EQ(in_.host.wait_outcome(), "error");
  const auto done = in_.host.wait_event(AGENTRY_EVENT_TOOL_COMPLETED);
  EXPECT_EQ(done.object().at("exitCode").as_int64(), 3);
  EXPECT_EQ(done.str("output"), "from-the-host\n" + std::filesystem::canonical(dir).string() + "\noops\n");
  EXPECT_EQ(done.str("status"), "failed");
}

TEST_F(MockPlugin, ExecSucceeds) {
  ASSERT_EQ(start(steps(R"([{"exec": ["true"]}])")), AGENTRY_OK);
  ASSERT_EQ(in_.host.wait_outcome(), "success");
  EXPECT_EQ(in_.host.wait_event(AGENTRY_EVENT_TOOL_COMPLETED).str("status"), "completed");
}

TEST_F(MockPlugin, ExecOfAMissingProgramFails) {
  ASSERT_EQ(start(steps(R"([{"exec": ["/nonexistent/agentry-abi-no-such-program"]}])")), AGENTRY_OK);
  ASSERT_EQ(in_.host.wait_outcome(), "error");
}

TEST_F(MockPlugin, InterruptKillsTheExecChild) {
  ASSERT_EQ(start(steps(R"([{"exec": ["sleep", "30"]}])")), AGENTRY_OK);
  in_.host.wait_event(AGENTRY_EVENT_TOOL_STARTED);
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(in_.interrupt("stop the child"), AGENTRY_OK);
  ASSERT_EQ(in_.host.wait_outcome(5s), "interrupted");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
}

TEST_F(MockPlugin, DestroyWhileRunningStillJoins) {
  // A host that breaks the [not running] precondition must not deadlock the plugin.
  ASSERT_EQ(start(steps(R"([{"hang": true}])")), AGENTRY_OK);
  in_.destroy();
}

}  // namespace
}  // namespace agentry::abi_test

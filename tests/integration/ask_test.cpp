// Asking a run about its state without a turn (POST /api/runs/:runId/ask, runs.ask):
// through the real daemon and the mock backend's ask extension, which repeats what the
// host told it. The run's timeline must be the same afterwards; the ask is audited.
#include "daemon_fixture.hpp"
#include "support/ws_client.hpp"

#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;
using namespace std::chrono_literals;

class AskTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    start_daemon();
  }

  test::HttpResponse ask(const std::string& run, json::object body) {
    return client().post_json("/api/runs/" + run + "/ask", body);
  }

  std::vector<json::object> asked_audits(const std::string& run) {
    std::vector<json::object> out;
    auto audit = client().get("/api/runs/" + run + "/audit").json();
    for (const auto& e : audit.at("events").as_array())
      if (e.at("type") == "run.asked") out.push_back(e.as_object());
    return out;
  }

  static bool contains(const json::value& text, std::string_view part) {
    return std::string_view(text.as_string()).find(part) != std::string_view::npos;
  }
};

TEST_F(AskTest, TheBackendAnswersFromTheRunsStateAndTheTimelineStaysAsItWas) {
  write_agent("talker", "mock", "{steps: [{checkpoint: tok-7}, {say: 'all done here'}]}");
  auto run = start_agent_run("talker");
  ASSERT_EQ(wait_until_settled(run), "success");
  const auto before = timeline(run);

  auto answered = ask(run, {{"question", "what did you do?"}});
  ASSERT_EQ(answered.status, 200) << answered.body;
  auto body = answered.json().as_object();
  const auto& answer = body.at("answer");
  EXPECT_TRUE(contains(answer, "status=success")) << answer;
  EXPECT_TRUE(contains(answer, "final=all done here")) << answer;
  EXPECT_TRUE(contains(answer, "resume=tok-7")) << answer;
  EXPECT_TRUE(contains(answer, "frame=no")) << answer;
  EXPECT_TRUE(contains(answer, "question=what did you do?")) << answer;
  EXPECT_EQ(body.at("runId").as_string(), run);
  EXPECT_EQ(body.at("backend"), "mock");
  EXPECT_EQ(body.at("usage").at("inputTokens"), 7);
  const std::string ask_id(body.at("askId").as_string());
  EXPECT_EQ(ask_id.rfind("ask", 0), 0u) << ask_id;

  const auto after = timeline(run);
  ASSERT_EQ(after.size(), before.size());
  EXPECT_EQ(after.back().at("cursor"), before.back().at("cursor"));
  EXPECT_EQ(get_run(run).at("status"), "success");

  auto audits = asked_audits(run);
  ASSERT_EQ(audits.size(), 1u);
  const auto& data = audits[0].at("data");
  EXPECT_EQ(data.at("askId").as_string(), ask_id);
  EXPECT_EQ(data.at("outcome"), "answered");
  EXPECT_EQ(data.at("question"), "what did you do?");
  EXPECT_EQ(data.at("backend"), "mock");
}

TEST_F(AskTest, ARunningRunIsAskedWithoutDisturbingItAndOverWebSocketToo) {
  write_agent("busy", "mock", "{steps: [{frame: {count: 1}}, {say: 'working on it'}, {hang: true}]}");
  auto run = start_agent_run("busy");
  // Until the message is on the timeline, the state may not have it yet.
  for (int i = 0; i < 200; ++i) {
    bool said = false;
    for (const auto& e : timeline(run)) said = said || e.at("kind") == "message.completed";
    if (said) break;
    std::this_thread::sleep_for(50ms);
  }
  test::WsClient ws("127.0.0.1", daemon_->port());
  auto response = ws.call("runs.ask", json::object{{"runId", run}, {"question", "how far along?"}});
  ASSERT_TRUE(response.contains("result")) << json::serialize(response);
  const auto& answer = response.at("result").at("answer");
  EXPECT_TRUE(contains(answer, "status=running")) << answer;
  EXPECT_TRUE(contains(answer, "final=working on it")) << answer;
  EXPECT_TRUE(contains(answer, "frame=yes")) << answer;  // the live view's latest frame went along
  EXPECT_EQ(run_status(run), "running");
  client().post_json("/api/runs/" + run + "/abort", json::object{});
  EXPECT_EQ(wait_until_settled(run), "aborted");
}

TEST_F(AskTest, ABackendWithoutAskIsNotSupported) {
  auto passive = create_run("x", true);
  auto refused = ask(passive, {{"question", "status?"}});
  EXPECT_EQ(refused.status, 422) << refused.body;
  EXPECT_EQ(error_code_of(refused), "CONFLICT");
  EXPECT_EQ(refused.json().at("error").at("details").at("reason"), "not_supported");
  EXPECT_NE(refused.body.find("not supported"), std::string::npos) << refused.body;

  write_agent("mute", "mock", "{steps: [{say: hi}], ask: {mode: unsupported}}");
  auto run = start_agent_run("mute");
  wait_until_settled(run);
  auto unsupported = ask(run, {{"question", "status?"}});
  EXPECT_EQ(unsupported.status, 422) << unsupported.body;
  EXPECT_EQ(unsupported.json().at("error").at("details").at("reason"), "not_supported");
  auto audits = asked_audits(run);
  ASSERT_EQ(audits.size(), 1u);
  EXPECT_EQ(audits[0].at("data").at("outcome"), "not_supported");
}

TEST_F(AskTest, ABackendThatFailsOrNeverAnswersGetsAClearError) {
  write_agent("failing", "mock", "{steps: [{say: hi}], ask: {mode: error}}");
  auto run = start_agent_run("failing");
  wait_until_settled(run);
  auto failed = ask(run, {{"question", "status?"}});
  EXPECT_EQ(failed.status, 503) << failed.body;
  EXPECT_EQ(failed.json().at("error").at("details").at("reason"), "backend_error");
  EXPECT_NE(failed.body.find("the mock was told to fail"), std::string::npos) << failed.body;

  write_agent("silent", "mock", "{steps: [{say: hi}], ask: {mode: hang}}");
  auto silent = start_agent_run("silent");
  wait_until_settled(silent);
  auto timed_out = ask(silent, {{"question", "status?"}, {"timeoutSec", 1}});
  EXPECT_EQ(timed_out.status, 503) << timed_out.body;
  EXPECT_EQ(timed_out.json().at("error").at("details").at("reason"), "timeout");
  auto audits = asked_audits(silent);
  ASSERT_EQ(audits.size(), 1u);
  EXPECT_EQ(audits[0].at("data").at("outcome"), "timeout");
  // The daemon goes on serving.
  EXPECT_EQ(client().get("/api/runs/" + silent).status, 200);
}

TEST_F(AskTest, BadQuestionsAreRefusedAtTheBoundary) {
  write_agent("talker", "mock", "{steps: [{say: hi}]}");
  auto run = start_agent_run("talker");
  wait_until_settled(run);
  EXPECT_EQ(ask(run, {}).status, 400);
  EXPECT_EQ(ask(run, {{"question", "   "}}).status, 400);
  EXPECT_EQ(ask(run, {{"question", 42}}).status, 400);
  EXPECT_EQ(ask(run, {{"question", std::string(17 * 1024, 'q')}}).status, 400);
  EXPECT_EQ(ask(run, {{"question", "q"}, {"timeoutSec", 0}}).status, 400);
  EXPECT_EQ(ask(run, {{"question", "q"}, {"timeoutSec", 301}}).status, 400);
  EXPECT_EQ(ask(run, {{"question", "q"}, {"colour", "red"}}).status, 400);
  auto missing = ask("run_doesnotexist", {{"question", "q"}});
  EXPECT_EQ(missing.status, 404) << missing.body;
  EXPECT_TRUE(asked_audits(run).empty());
}

}  // namespace
}  // namespace agentry::integration

// Approvals: an agent that asks before acting waits until someone answers through the
// API (HTTP or WebSocket); the question shows in the run's detail meanwhile, and the
// answer is audited.
#include "daemon_fixture.hpp"
#include "support/ws_client.hpp"

#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;

class ApprovalsTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    start_daemon();
    write_agent("asker", "mock",
                "{steps: [{ask: {summary: 'rm -rf build', kind: command}}, {say: 'cleaned up'}]}");
  }

  /// Polls the run until its detail lists a pending approval; returns it.
  json::object wait_for_approval(const std::string& run) {
    for (int i = 0; i < 300; ++i) {
      auto detail = get_run(run);
      auto& pending = detail.at("pendingApprovals").as_array();
      if (!pending.empty()) return pending.at(0).as_object();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ADD_FAILURE() << "no approval appeared";
    return {};
  }

  std::vector<std::string> audit_types(const std::string& run) {
    std::vector<std::string> types;
    auto audit = client().get("/api/runs/" + run + "/audit").json();
    for (const auto& e : audit.at("events").as_array())
      types.emplace_back(e.at("type").as_string());
    return types;
  }
};

TEST_F(ApprovalsTest, AnApprovedRequestLetsTheAgentGoOn) {
  auto run = start_agent_run("asker");
  auto approval = wait_for_approval(run);
  EXPECT_EQ(approval.at("kind"), "command");
  EXPECT_EQ(approval.at("summary"), "rm -rf build");
  const std::string id(approval.at("approvalId").as_string());

  auto answered = client().post_json("/api/runs/" + run + "/approvals/" + id, json::object{{"decision", "approve"}});
  ASSERT_EQ(answered.status, 200) << answered.body;
  EXPECT_EQ(answered.json().at("result").at("decision"), "approve");
  EXPECT_EQ(wait_until_settled(run), "success");
  EXPECT_TRUE(get_run(run).at("pendingApprovals").as_array().empty());
  auto types = audit_types(run);
  EXPECT_NE(std::find(types.begin(), types.end(), "run.approval_answered"), types.end());

  // Answered once: a second answer finds nothing waiting.
  auto again = client().post_json("/api/runs/" + run + "/approvals/" + id, json::object{{"decision", "approve"}});
  EXPECT_EQ(again.status, 404) << again.body;
}

TEST_F(ApprovalsTest, SummariesCountTheQuestionsWaitingSoTheBoardCanShowWhoNeedsTheUser) {
  auto summaries = client().sse("/api/events/run-summaries");
  auto run = start_agent_run("asker");
  // The summary stream says so once the question is asked, with a newer revision.
  auto wait_for_count = [&](std::int64_t want) -> std::int64_t {
    for (int i = 0; i < 50; ++i) {
      auto event = summaries.next(std::chrono::seconds(10));
      if (!event) break;
      auto body = json::parse(event->data);
      const auto* summary = body.is_object() ? body.as_object().if_contains("summary") : nullptr;
      if (!summary || summary->at("runId").as_string() != run) continue;  // another run, a removal
      EXPECT_TRUE(summary->as_object().contains("pendingApprovalCount")) << event->data;
      if (!summary->as_object().contains("pendingApprovalCount")) return -1;
      if (summary->at("pendingApprovalCount").as_int64() == want) return summary->at("revision").as_int64();
    }
    ADD_FAILURE() << "no summary with pendingApprovalCount " << want;
    return -1;
  };
  const auto asked_at = wait_for_count(1);
  auto approval = wait_for_approval(run);
  // The list says so too (a board that loads before it follows the stream).
  bool listed = false;
  const auto listing = client().get("/api/runs").json();
  for (const auto& s : listing.at("runs").as_array())
    if (s.at("runId").as_string() == run) listed = s.at("pendingApprovalCount").as_int64() == 1;
  EXPECT_TRUE(listed);

  const std::string id(approval.at("approvalId").as_string());
  ASSERT_EQ(client().post_json("/api/runs/" + run + "/approvals/" + id, json::object{{"decision", "approve"}}).status,
            200);
  const auto answered_at = wait_for_count(0);
  EXPECT_GT(answered_at, asked_at);
  EXPECT_EQ(wait_until_settled(run), "success");
  EXPECT_EQ(get_run(run).at("pendingApprovalCount").as_int64(), 0);
}

TEST_F(ApprovalsTest, ADeniedRequestEndsTheAttemptAndOverWebSocketToo) {
  auto run = start_agent_run("asker");
  const std::string id(wait_for_approval(run).at("approvalId").as_string());
  test::WsClient ws("127.0.0.1", daemon_->port());
  auto response = ws.call("runs.answerApproval", json::object{{"runId", run}, {"approvalId", id}, {"decision", "deny"}});
  ASSERT_FALSE(response.contains("error")) << json::serialize(response);
  EXPECT_EQ(response.at("result").at("result").at("decision"), "deny");
  EXPECT_EQ(wait_until_settled(run), "error");
  EXPECT_NE(get_run(run).at("statusReason").as_string().find("denied"), json::string::npos);
}

TEST_F(ApprovalsTest, BadAnswersAreRefusedAndTheAgentKeepsWaiting) {
  auto run = start_agent_run("asker");
  const std::string id(wait_for_approval(run).at("approvalId").as_string());
  const std::string route = "/api/runs/" + run + "/approvals/";

  auto bad_decision = client().post_json(route + id, json::object{{"decision", "maybe"}});
  EXPECT_EQ(bad_decision.status, 400) << bad_decision.body;
  EXPECT_EQ(bad_decision.json().at("error").at("code"), "INVALID_REQUEST");
  auto missing = client().post_json(route + id, json::object{});
  EXPECT_EQ(missing.status, 400) << missing.body;
  auto unknown_key = client().post_json(route + id, json::object{{"decision", "approve"}, {"why", "x"}});
  EXPECT_EQ(unknown_key.status, 400) << unknown_key.body;
  auto unknown = client().post_json(route + "nope", json::object{{"decision", "approve"}});
  EXPECT_EQ(unknown.status, 404) << unknown.body;
  auto no_run = client().post_json("/api/runs/nosuchrun/approvals/" + id, json::object{{"decision", "approve"}});
  EXPECT_EQ(no_run.status, 404) << no_run.body;

  // The same refusal over WebSocket carries the same error code.
  test::WsClient ws("127.0.0.1", daemon_->port());
  auto ws_bad = ws.call("runs.answerApproval", json::object{{"runId", run}, {"approvalId", id}, {"decision", "maybe"}});
  ASSERT_TRUE(ws_bad.contains("error")) << json::serialize(ws_bad);
  EXPECT_EQ(ws_bad.at("error").at("data").at("code"), "INVALID_REQUEST") << json::serialize(ws_bad);

  // Still waiting, still answerable; an abort ends the wait.
  EXPECT_EQ(get_run(run).at("pendingApprovals").as_array().size(), 1u);
  ASSERT_EQ(client().post_json("/api/runs/" + run + "/abort", json::object{}).status, 200);
  EXPECT_EQ(wait_until_settled(run), "aborted");
  EXPECT_TRUE(get_run(run).at("pendingApprovals").as_array().empty());
}

}  // namespace
}  // namespace agentry::integration

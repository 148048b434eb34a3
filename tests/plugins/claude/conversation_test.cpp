// Conversation rules that no single recording shows: queued follow-ups, unknown lines and
// control requests, withdrawn and pending approvals, a process that dies mid-turn.
#include "conversation.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "agentry/plugin/events.h"

namespace agentry::claude {
namespace {

namespace json = boost::json;

const char* kResultOk = R"({"type":"result","subtype":"success","is_error":false,"result":"ok","usage":{"input_tokens":3,"output_tokens":2}})";
const char* kResultInterrupted = R"({"type":"result","subtype":"error_during_execution","is_error":true,"errors":["aborted"]})";
const char* kCanUseBash = R"({"type":"control_request","request_id":"r-1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"rm -rf build"},"tool_use_id":"toolu_1"}})";

std::vector<json::object> of(const Step& step, uint16_t type) {
  std::vector<json::object> out;
  for (const Event& e : step.events)
    if (e.type == type) out.push_back(json::parse(e.payload).as_object());
  return out;
}

std::string subtype_of_write(const std::string& line) {
  const json::object o = json::parse(line).as_object();
  if (o.at("type") == "control_request") return std::string(o.at("request").at("subtype").as_string());
  if (o.at("type") == "control_response") {
    const json::object& r = o.at("response").as_object();
    if (r.at("subtype") == "error") return "error";
    return std::string(r.at("response").at("behavior").as_string());
  }
  return std::string(o.at("type").as_string());
}

TEST(ClaudeConversation, FollowUpIsQueuedAndTheAttemptWaitsForItsTurn) {
  Conversation c(false);
  c.open("first");
  std::optional<Step> follow = c.on_message("second");
  ASSERT_TRUE(follow);
  ASSERT_EQ(follow->writes.size(), 1u);
  EXPECT_EQ(json::parse(follow->writes[0]).at("message").at("content"), "second");
  const auto notices = of(*follow, AGENTRY_EVENT_NOTICE);
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(std::string(notices[0].at("message").as_string()).find("queued by claude as its next turn"),
            std::string::npos);

  Step first = c.on_line(kResultOk);
  EXPECT_FALSE(first.close_stdin) << "the queued turn has not run yet";
  EXPECT_FALSE(c.turns_done());
  Step second = c.on_line(kResultOk);
  EXPECT_TRUE(second.close_stdin);
  EXPECT_TRUE(c.turns_done());
  EXPECT_EQ(c.outcome("").outcome, "success");
  // Each turn reports its own usage: an increment, summed by the host.
  EXPECT_EQ(of(first, AGENTRY_EVENT_USAGE).at(0).at("inputTokens"), 3);
  EXPECT_EQ(of(second, AGENTRY_EVENT_USAGE).at(0).at("inputTokens"), 3);
  EXPECT_FALSE(c.on_message("too late")) << "no turn runs any more";
}

TEST(ClaudeConversation, InterruptAlsoInterruptsTheQueuedTurn) {
  Conversation c(false);
  c.open("first");
  ASSERT_TRUE(c.on_message("second"));
  Step interrupt = c.on_interrupt("stop");
  ASSERT_EQ(interrupt.writes.size(), 1u);
  EXPECT_EQ(subtype_of_write(interrupt.writes[0]), "interrupt");
  EXPECT_FALSE(c.on_message("third")) << "a message after an interrupt would reach nobody";
  Step first = c.on_line(kResultInterrupted);
  ASSERT_EQ(first.writes.size(), 1u) << "the queued turn starts next and is interrupted too";
  EXPECT_EQ(subtype_of_write(first.writes[0]), "interrupt");
  Step second = c.on_line(kResultInterrupted);
  EXPECT_TRUE(second.close_stdin);
  EXPECT_EQ(c.outcome("").outcome, "interrupted");
  EXPECT_EQ(c.outcome("").message, "interrupted: stop");
}

TEST(ClaudeConversation, ATurnThatEndedBeforeTheInterruptKeepsItsOutcome) {
  Conversation c(false);
  c.open("first");
  c.on_interrupt("late");
  c.on_line(kResultOk);
  EXPECT_EQ(c.outcome("").outcome, "success");
}

TEST(ClaudeConversation, ApprovalDeniedSendsTheDenialToClaude) {
  Conversation c(false);
  c.open("go");
  Step ask = c.on_line(kCanUseBash);
  const auto approvals = of(ask, AGENTRY_EVENT_APPROVAL_REQUEST);
  ASSERT_EQ(approvals.size(), 1u);
  EXPECT_EQ(approvals[0].at("approvalId"), "r-1");
  EXPECT_EQ(approvals[0].at("summary"), "rm -rf build");
  std::optional<Step> deny = c.on_approval("r-1", false);
  ASSERT_TRUE(deny);
  ASSERT_EQ(deny->writes.size(), 1u);
  const json::object o = json::parse(deny->writes[0]).as_object();
  EXPECT_EQ(o.at("response").at("response").at("behavior"), "deny");
  EXPECT_FALSE(o.at("response").at("response").at("message").as_string().empty());
}

TEST(ClaudeConversation, InterruptDeniesPendingApprovals) {
  Conversation c(false);
  c.open("go");
  c.on_line(kCanUseBash);
  Step interrupt = c.on_interrupt("stop");
  ASSERT_EQ(interrupt.writes.size(), 2u);
  EXPECT_EQ(subtype_of_write(interrupt.writes[0]), "deny");
  EXPECT_EQ(subtype_of_write(interrupt.writes[1]), "interrupt");
  EXPECT_EQ(c.pending_approvals(), 0u);
  EXPECT_FALSE(c.on_approval("r-1", true)) << "already answered";
  // A permission request that arrives while interrupting is refused at once.
  Step late = c.on_line(kCanUseBash);
  ASSERT_EQ(late.writes.size(), 1u);
  EXPECT_EQ(subtype_of_write(late.writes[0]), "deny");
  EXPECT_TRUE(of(late, AGENTRY_EVENT_APPROVAL_REQUEST).empty());
}

TEST(ClaudeConversation, WithdrawnApprovalIsForgotten) {
  Conversation c(false);
  c.open("go");
  c.on_line(kCanUseBash);
  Step cancel = c.on_line(R"({"type":"control_cancel_request","request_id":"r-1"})");
  EXPECT_EQ(c.pending_approvals(), 0u);
  EXPECT_EQ(of(cancel, AGENTRY_EVENT_NOTICE).size(), 1u);
  EXPECT_FALSE(c.on_approval("r-1", true));
}

TEST(ClaudeConversation, UnknownControlRequestsGetAnErrorAnswer) {
  Conversation c(false);
  c.open("go");
  Step step = c.on_line(R"({"type":"control_request","request_id":"h-1","request":{"subtype":"hook_callback"}})");
  ASSERT_EQ(step.writes.size(), 1u);
  const json::object o = json::parse(step.writes[0]).as_object();
  EXPECT_EQ(o.at("response").at("subtype"), "error");
  EXPECT_EQ(o.at("response").at("request_id"), "h-1");
  EXPECT_EQ(of(step, AGENTRY_EVENT_NOTICE).size(), 1u);
}

TEST(ClaudeConversation, UnknownAndBrokenLinesBecomeNotices) {
  Conversation c(false);
  c.open("go");
  const auto message = [](const Step& s) { return std::string(of(s, AGENTRY_EVENT_NOTICE).at(0).at("message").as_string()); };
  EXPECT_NE(message(c.on_line(R"({"type":"brand_new","x":1})")).find("brand_new"), std::string::npos);
  EXPECT_NE(message(c.on_line(R"({"type":"system","subtype":"fresh_idea"})")).find("system/fresh_idea"), std::string::npos);
  EXPECT_NE(message(c.on_line("Segmentation fault")).find("not a JSON object"), std::string::npos);
  EXPECT_NE(message(c.on_line(R"({"type":"system","subtype":"api_retry","attempt":1,"max_retries":3,"retry_delay_ms":500,"error_status":529,"error":"overloaded"})"))
                .find("HTTP 529"),
            std::string::npos);
  EXPECT_TRUE(c.on_line("").events.empty());
  // A chatty unknown kind is capped, and the cap is said once.
  int notices = 0;
  for (int i = 0; i < 50; ++i) notices += static_cast<int>(of(c.on_line(R"({"type":"chatty"})"), AGENTRY_EVENT_NOTICE).size());
  EXPECT_EQ(notices, 21);
}

TEST(ClaudeConversation, ProcessDeathBeforeTheResultIsAnError) {
  Conversation c(false);
  c.open("go");
  const Outcome outcome = c.outcome("claude exited with code 1 before its turn ended; stderr: boom");
  EXPECT_EQ(outcome.outcome, "error");
  EXPECT_EQ(outcome.message, "claude exited with code 1 before its turn ended; stderr: boom");
}

TEST(ClaudeConversation, TimeoutIsAnError) {
  Conversation c(false);
  c.open("go");
  Step step = c.on_timeout(5);
  ASSERT_EQ(step.writes.size(), 1u);
  EXPECT_EQ(subtype_of_write(step.writes[0]), "interrupt");
  c.on_line(kResultInterrupted);
  EXPECT_EQ(c.outcome("").outcome, "error");
  EXPECT_EQ(c.outcome("").message, "timed out after 5 s");
}

TEST(ClaudeConversation, ToolFailuresAndDenialsAreReportedAsSuch) {
  Conversation c(false);
  c.open("go");
  c.on_line(R"({"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"false"}}]}})");
  Step failed = c.on_line(R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"Exit code 1","is_error":true}]},"tool_use_result":"Error: Exit code 1"})");
  EXPECT_EQ(of(failed, AGENTRY_EVENT_TOOL_COMPLETED).at(0).at("status"), "failed");
  EXPECT_EQ(of(failed, AGENTRY_EVENT_TOOL_COMPLETED).at(0).at("output"), "Exit code 1");
  c.on_line(R"({"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"Write","input":{"file_path":"/w/a.txt","content":"x"}}]}})");
  Step declined = c.on_line(R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"denied","is_error":true}]},"tool_result_meta":[{"id":"t2","permission_decision":{"decision":"reject"}}]})");
  const json::object d = of(declined, AGENTRY_EVENT_TOOL_COMPLETED).at(0);
  EXPECT_EQ(d.at("status"), "declined");
  EXPECT_EQ(d.at("tool"), "file_change");
}

}  // namespace
}  // namespace agentry::claude

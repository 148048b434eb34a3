// The protocol code against transcripts recorded from the real Claude Code 2.1.332
// (tests/e2e/golden/claude, stdout lines as the binary printed them): every line goes
// through a Conversation, which must turn them into the events and answers the backend
// promises (docs/backends/claude.md).
#include "conversation.hpp"
#include "normalizer.hpp"

#include <fstream>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "agentry/plugin/events.h"
#include "support/source_tree.hpp"

namespace agentry::claude {
namespace {

namespace json = boost::json;

std::vector<std::string> golden(const std::string& scenario) {
  const std::string path = test::source_file("tests/e2e/golden/claude/" + scenario + ".jsonl");
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "missing golden transcript " << path;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  EXPECT_FALSE(lines.empty()) << path;
  return lines;
}

json::object payload(const Event& e) { return json::parse(e.payload).as_object(); }

// Everything a transcript produced, in order.
struct Played {
  std::vector<Event> events;
  std::vector<std::string> writes;
  bool closed = false;

  void add(Step step) {
    for (Event& e : step.events) events.push_back(std::move(e));
    for (std::string& w : step.writes) writes.push_back(std::move(w));
    closed = closed || step.close_stdin;
  }
  std::vector<json::object> of(uint16_t type) const {
    std::vector<json::object> out;
    for (const Event& e : events)
      if (e.type == type) out.push_back(payload(e));
    return out;
  }
  std::string deltas() const {
    std::string text;
    for (const json::object& d : of(AGENTRY_EVENT_MESSAGE_DELTA)) text += d.at("text").as_string();
    return text;
  }
};

// Plays a whole transcript, answering nothing.
Played play(Conversation& c, const std::string& scenario, std::string_view prompt = "prompt") {
  Played played;
  played.add(c.open(prompt));
  for (const std::string& line : golden(scenario)) played.add(c.on_line(line));
  return played;
}

std::string session_of(const std::string& scenario) {
  for (const std::string& line : golden(scenario)) {
    json::value v = json::parse(line);
    if (v.as_object().at("type") == "system" && v.as_object().at("subtype") == "init")
      return std::string(v.as_object().at("session_id").as_string());
  }
  return {};
}

TEST(ClaudeGolden, TextTurnStreamsDeltasThenTheWholeMessage) {
  Conversation c(false);
  Played p = play(c, "text");
  ASSERT_EQ(p.of(AGENTRY_EVENT_CHECKPOINT).size(), 1u);
  EXPECT_EQ(p.of(AGENTRY_EVENT_CHECKPOINT)[0].at("resumeToken"), json::value(session_of("text")));
  const auto completed = p.of(AGENTRY_EVENT_MESSAGE_COMPLETED);
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_EQ(completed[0].at("text"), "Hello from the mock model.");
  EXPECT_EQ(p.deltas(), "Hello from the mock model.");
  EXPECT_GE(p.of(AGENTRY_EVENT_MESSAGE_DELTA).size(), 2u);
  for (const Event& e : p.events)
    EXPECT_EQ((e.flags & AGENTRY_EVENT_FLAG_EPHEMERAL) != 0, e.type == AGENTRY_EVENT_MESSAGE_DELTA);
  EXPECT_EQ(completed[0].at("itemId"), p.of(AGENTRY_EVENT_MESSAGE_DELTA)[0].at("itemId"));
  const auto usage = p.of(AGENTRY_EVENT_USAGE);
  ASSERT_EQ(usage.size(), 1u);
  EXPECT_GT(usage[0].at("inputTokens").as_int64(), 0);
  EXPECT_GT(usage[0].at("outputTokens").as_int64(), 0);
  EXPECT_TRUE(p.of(AGENTRY_EVENT_NOTICE).empty()) << "a known line type was reported as unknown";
  EXPECT_TRUE(p.closed);
  EXPECT_TRUE(c.turns_done());
  EXPECT_EQ(c.outcome("").outcome, "success");
}

TEST(ClaudeGolden, OpeningSendsInitializeThenThePrompt) {
  Conversation c(false);
  Step open = c.open("SAY: hi");
  ASSERT_EQ(open.writes.size(), 2u);
  const json::object init = json::parse(open.writes[0]).as_object();
  EXPECT_EQ(init.at("type"), "control_request");
  EXPECT_EQ(init.at("request").at("subtype"), "initialize");
  const json::object user = json::parse(open.writes[1]).as_object();
  EXPECT_EQ(user.at("type"), "user");
  EXPECT_EQ(user.at("message").at("content"), "SAY: hi");
  for (const std::string& w : open.writes) EXPECT_EQ(w.back(), '\n');
}

TEST(ClaudeGolden, BashToolAwaitsApprovalAndReportsItsOutput) {
  Conversation c(false);
  Played p;
  p.add(c.open("SHELL: echo hi > out.txt"));
  int asked = 0;
  for (const std::string& line : golden("bash")) {
    Step step = c.on_line(line);
    for (const Event& e : step.events) {
      if (e.type != AGENTRY_EVENT_APPROVAL_REQUEST) continue;
      ++asked;
      const json::object request = payload(e);
      EXPECT_EQ(request.at("kind"), "command");
      EXPECT_EQ(request.at("summary"), "echo hi > out.txt");
      EXPECT_EQ(request.at("details").at("tool"), "Bash");
      EXPECT_EQ(request.at("details").at("input").at("command"), "echo hi > out.txt");
      EXPECT_EQ(c.pending_approvals(), 1u);
      // Answered where the recording answered: right after the request.
      const std::string approval_id(request.at("approvalId").as_string());
      EXPECT_FALSE(c.on_approval("no-such-id", true));
      std::optional<Step> answer = c.on_approval(approval_id, true);
      ASSERT_TRUE(answer);
      ASSERT_EQ(answer->writes.size(), 1u);
      const json::object response = json::parse(answer->writes[0]).as_object();
      EXPECT_EQ(response.at("type"), "control_response");
      EXPECT_EQ(response.at("response").at("request_id"), json::value(approval_id));
      EXPECT_EQ(response.at("response").at("response").at("behavior"), "allow");
      EXPECT_EQ(response.at("response").at("response").at("updatedInput").at("command"), "echo hi > out.txt");
      EXPECT_FALSE(c.on_approval(approval_id, true)) << "answered twice";
    }
    p.add(std::move(step));
  }
  EXPECT_EQ(asked, 1);
  const auto started = p.of(AGENTRY_EVENT_TOOL_STARTED);
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].at("tool"), "command");
  EXPECT_EQ(started[0].at("name"), "Bash");
  EXPECT_EQ(started[0].at("command"), "echo hi > out.txt");
  const auto completed = p.of(AGENTRY_EVENT_TOOL_COMPLETED);
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_EQ(completed[0].at("toolCallId"), started[0].at("toolCallId"));
  EXPECT_EQ(completed[0].at("status"), "completed");
  EXPECT_TRUE(p.closed);
  EXPECT_EQ(c.outcome("").outcome, "success");
}

TEST(ClaudeGolden, UnrestrictedRunsAutoApproveAndSayWhatRan) {
  Conversation c(true);
  Played p = play(c, "bash");
  EXPECT_TRUE(p.of(AGENTRY_EVENT_APPROVAL_REQUEST).empty());
  EXPECT_EQ(c.pending_approvals(), 0u);
  bool allowed = false;
  for (const std::string& w : p.writes) {
    const json::object o = json::parse(w).as_object();
    if (o.at("type") == "control_response") {
      EXPECT_EQ(o.at("response").at("response").at("behavior"), "allow");
      EXPECT_EQ(o.at("response").at("response").at("updatedInput").at("command"), "echo hi > out.txt");
      allowed = true;
    }
  }
  EXPECT_TRUE(allowed);
  bool noted = false;
  for (const json::object& n : p.of(AGENTRY_EVENT_NOTICE))
    noted = noted || n.at("message") == "auto-approved Bash: echo hi > out.txt";
  EXPECT_TRUE(noted);
}

TEST(ClaudeGolden, InterruptEndsTheTurnAsInterrupted) {
  Conversation c(false);
  Played p;
  p.add(c.open("SAY: Starting a long answer"));
  bool sent = false;
  for (const std::string& line : golden("interrupt")) {
    // Interrupt where the recording did: once the reply had begun.
    if (!sent && line.find("\"text_delta\"") != std::string::npos) {
      Step step = c.on_interrupt("user asked");
      ASSERT_EQ(step.writes.size(), 1u);
      EXPECT_EQ(json::parse(step.writes[0]).at("request").at("subtype"), "interrupt");
      EXPECT_TRUE(c.on_interrupt("again").writes.empty()) << "interrupt must be idempotent";
      sent = true;
    }
    p.add(c.on_line(line));
  }
  ASSERT_TRUE(sent);
  EXPECT_TRUE(c.turns_done());
  EXPECT_TRUE(p.closed);
  const Outcome outcome = c.outcome("");
  EXPECT_EQ(outcome.outcome, "interrupted");
  EXPECT_EQ(outcome.message, "interrupted: user asked");
  EXPECT_FALSE(p.of(AGENTRY_EVENT_MESSAGE_COMPLETED).empty()) << "the text before the interrupt is kept";
}

TEST(ClaudeGolden, ApiErrorIsAnErrorDespiteSubtypeSuccess) {
  Conversation c(false);
  Played p = play(c, "api_error");
  EXPECT_TRUE(p.of(AGENTRY_EVENT_MESSAGE_COMPLETED).empty()) << "an API error is not the model's message";
  bool noticed = false;
  for (const json::object& n : p.of(AGENTRY_EVENT_NOTICE))
    noticed = noticed || (n.at("level") == "error" &&
                          std::string_view(n.at("message").as_string()).starts_with("API Error: 500"));
  EXPECT_TRUE(noticed);
  const Outcome outcome = c.outcome("");
  EXPECT_EQ(outcome.outcome, "error");
  EXPECT_TRUE(outcome.message.starts_with("API Error: 500")) << outcome.message;
}

TEST(ClaudeGolden, ResumeKeepsTheSessionId) {
  const std::string first = session_of("resume.setup");
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(session_of("resume"), first);
  Conversation c(false);
  Played p = play(c, "resume");
  ASSERT_EQ(p.of(AGENTRY_EVENT_CHECKPOINT).size(), 1u);
  EXPECT_EQ(p.of(AGENTRY_EVENT_CHECKPOINT)[0].at("resumeToken"), json::value(first));
  EXPECT_EQ(c.outcome("").outcome, "success");
}

TEST(ClaudeGolden, EveryPayloadIsAJsonObject) {
  for (const char* scenario : {"text", "bash", "interrupt", "api_error", "resume", "resume.setup"}) {
    Conversation c(true);
    Played p = play(c, scenario);
    for (const Event& e : p.events) {
      boost::system::error_code ec;
      json::value v = json::parse(e.payload, ec);
      EXPECT_FALSE(ec) << scenario << ": " << e.payload;
      EXPECT_TRUE(v.is_object()) << scenario << ": " << e.payload;
    }
  }
}

// Synthetic lines in the shapes Claude Code prints (stream-json with partial messages).

TEST(ClaudeNormalizer, ThinkingStreamsAsEphemeralReasoningDeltas) {
  Normalizer n;
  const Parsed parsed = n.on_line(
      R"({"type":"stream_event","api_message_id":"msg_1","event":{"type":"content_block_delta","index":0,)"
      R"("delta":{"type":"thinking_delta","thinking":"weighing it"}}})");
  ASSERT_EQ(parsed.events.size(), 1u);
  EXPECT_EQ(parsed.events[0].type, AGENTRY_EVENT_REASONING_DELTA);
  EXPECT_EQ(parsed.events[0].flags, AGENTRY_EVENT_FLAG_EPHEMERAL);
  EXPECT_EQ(json::parse(parsed.events[0].payload).at("text"), "weighing it");
  const Parsed signature = n.on_line(
      R"({"type":"stream_event","api_message_id":"msg_1","event":{"type":"content_block_delta","index":0,)"
      R"("delta":{"type":"signature_delta","signature":"abc"}}})");
  EXPECT_TRUE(signature.events.empty());
}

TEST(ClaudeNormalizer, TodoWriteIsAlsoThePlan) {
  Normalizer n;
  const Parsed parsed = n.on_line(
      R"({"type":"assistant","message":{"id":"msg_2","content":[{"type":"tool_use","id":"toolu_1","name":"TodoWrite",)"
      R"("input":{"todos":[{"content":"Read the code","status":"completed","activeForm":"Reading"},)"
      R"({"content":"Fix the bug","status":"in_progress","activeForm":"Fixing"}]}}]}})");
  ASSERT_EQ(parsed.events.size(), 2u);
  EXPECT_EQ(parsed.events[0].type, AGENTRY_EVENT_TOOL_STARTED);
  EXPECT_EQ(parsed.events[1].type, AGENTRY_EVENT_PLAN);
  EXPECT_EQ(json::parse(parsed.events[1].payload),
            json::parse(R"({"steps":[{"step":"Read the code","status":"completed"},)"
                        R"({"step":"Fix the bug","status":"in_progress"}]})"));
}

TEST(ClaudeNormalizer, ASubAgentsEventsNameTheCallThatRunsIt) {
  Normalizer n;
  const Parsed said = n.on_line(
      R"({"type":"assistant","parent_tool_use_id":"toolu_task","message":{"id":"msg_3","content":[)"
      R"({"type":"text","text":"found it"},{"type":"tool_use","id":"toolu_2","name":"Bash","input":{"command":"ls"}}]}})");
  ASSERT_EQ(said.events.size(), 2u);
  for (const Event& e : said.events) EXPECT_EQ(json::parse(e.payload).at("parentToolCallId"), "toolu_task") << e.type;
  const Parsed result = n.on_line(
      R"({"type":"user","parent_tool_use_id":"toolu_task","message":{"content":[)"
      R"({"type":"tool_result","tool_use_id":"toolu_2","content":"a.txt"}]}})");
  ASSERT_EQ(result.events.size(), 1u);
  EXPECT_EQ(json::parse(result.events[0].payload).at("parentToolCallId"), "toolu_task");
  const Parsed main_agent = n.on_line(
      R"({"type":"assistant","parent_tool_use_id":null,"message":{"id":"msg_4","content":[{"type":"text","text":"done"}]}})");
  ASSERT_EQ(main_agent.events.size(), 1u);
  EXPECT_FALSE(json::parse(main_agent.events[0].payload).as_object().contains("parentToolCallId"));
}

}  // namespace
}  // namespace agentry::claude

// The normalizer and the approval mapping replayed over transcripts recorded from the
// real codex 0.171.0 app-server (tests/e2e/golden/codex/<scenario>.jsonl, server->client
// lines). What a run shows depends on these mappings, so each scenario pins its events.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "agentry/plugin/events.h"
#include "approvals.hpp"
#include "normalizer.hpp"

namespace agentry::codex {
namespace {

namespace json = boost::json;

struct Replay {
  std::vector<Event> events;
  std::vector<ApprovalAsk> asks;
  std::vector<json::object> payloads;  // events[i] parsed
  std::optional<TurnEnd> end;
  std::string thread_id;
};

// Feeds a transcript the way the session does: the thread id from the thread/start (or
// resume) answer, the turn id from the turn/start answer, notifications to the
// normalizer, server requests to approval_ask().
Replay replay(const std::string& scenario) {
  std::ifstream in(std::string(AGENTRY_CODEX_GOLDEN_DIR) + "/" + scenario + ".jsonl");
  EXPECT_TRUE(in) << "missing golden transcript " << scenario;
  Normalizer normalizer;
  Replay out;
  std::string line;
  while (std::getline(in, line)) {
    json::object msg = json::parse(line).as_object();
    const json::object params = msg.contains("params") ? msg.at("params").as_object() : json::object();
    if (!msg.contains("method")) {
      const json::object& result = msg.at("result").as_object();
      if (const json::value* thread = result.if_contains("thread")) {
        out.thread_id = std::string(thread->at("id").as_string());
        normalizer.set_thread(out.thread_id);
      }
      if (const json::value* turn = result.if_contains("turn"))
        normalizer.set_turn(std::string(turn->at("id").as_string()));
      continue;
    }
    const std::string method(msg.at("method").as_string());
    if (msg.contains("id")) {
      const json::value* item_id = params.if_contains("itemId");
      auto ask = approval_ask(method, params, item_id ? normalizer.item(std::string(item_id->as_string())) : nullptr);
      EXPECT_TRUE(ask.has_value()) << "unexpected server request " << method;
      if (ask) out.asks.push_back(std::move(*ask));
      continue;
    }
    for (Event& e : normalizer.on_notification(method, params)) {
      out.payloads.push_back(json::parse(e.payload).as_object());
      out.events.push_back(std::move(e));
    }
  }
  out.end = normalizer.turn_end();
  return out;
}

std::vector<uint16_t> types(const Replay& r) {
  std::vector<uint16_t> out;
  for (const Event& e : r.events) out.push_back(e.type);
  return out;
}

std::string concatenated_deltas(const Replay& r) {
  std::string text;
  for (std::size_t i = 0; i < r.events.size(); ++i)
    if (r.events[i].type == AGENTRY_EVENT_MESSAGE_DELTA) text += std::string(r.payloads[i].at("text").as_string());
  return text;
}

TEST(CodexGolden, TextTurnStreamsDeltasThenTheWholeMessage) {
  const Replay r = replay("text");
  EXPECT_EQ(types(r),
            (std::vector<uint16_t>{AGENTRY_EVENT_MESSAGE_DELTA, AGENTRY_EVENT_MESSAGE_DELTA,
                                   AGENTRY_EVENT_MESSAGE_DELTA, AGENTRY_EVENT_MESSAGE_COMPLETED, AGENTRY_EVENT_USAGE}));
  for (const Event& e : r.events)
    EXPECT_EQ((e.flags & AGENTRY_EVENT_FLAG_EPHEMERAL) != 0, e.type == AGENTRY_EVENT_MESSAGE_DELTA);
  EXPECT_EQ(r.payloads[3].at("text"), "Hello from the mock model.");
  EXPECT_EQ(r.payloads[3].at("role"), "assistant");
  EXPECT_EQ(concatenated_deltas(r), "Hello from the mock model.");
  EXPECT_EQ(r.payloads[0].at("itemId"), r.payloads[3].at("itemId"));
  EXPECT_GT(r.payloads[4].at("inputTokens").as_int64(), 0);
  EXPECT_GT(r.payloads[4].at("outputTokens").as_int64(), 0);
  ASSERT_TRUE(r.end.has_value());
  EXPECT_EQ(r.end->status, "completed");
}

TEST(CodexGolden, ShellTurnBecomesACommandToolCall) {
  const Replay r = replay("shell");
  ASSERT_GE(r.events.size(), 2u);
  EXPECT_EQ(r.events[0].type, AGENTRY_EVENT_TOOL_STARTED);
  EXPECT_EQ(r.payloads[0].at("tool"), "command");
  EXPECT_NE(std::string(r.payloads[0].at("command").as_string()).find("echo hi > out.txt"), std::string::npos);
  EXPECT_EQ(r.events[1].type, AGENTRY_EVENT_TOOL_COMPLETED);
  EXPECT_EQ(r.payloads[1].at("toolCallId"), r.payloads[0].at("toolCallId"));
  EXPECT_EQ(r.payloads[1].at("status"), "completed");
  EXPECT_EQ(r.payloads[1].at("exitCode"), 0);
  // Two model calls, each reported as an increment, then the closing message.
  std::vector<int64_t> totals;
  for (std::size_t i = 0; i < r.events.size(); ++i)
    if (r.events[i].type == AGENTRY_EVENT_USAGE) totals.push_back(r.payloads[i].at("totalTokens").as_int64());
  ASSERT_EQ(totals.size(), 2u);
  EXPECT_GT(totals[0], 0);
  EXPECT_GT(totals[1], 0);
  EXPECT_EQ(r.end->status, "completed");
}

TEST(CodexGolden, CommandApprovalBecomesAnApprovalRequest) {
  const Replay r = replay("approval");
  ASSERT_EQ(r.asks.size(), 1u);
  EXPECT_EQ(r.asks[0].kind, "command");
  EXPECT_FALSE(r.asks[0].legacy);
  EXPECT_NE(r.asks[0].summary.find("touch approved.txt"), std::string::npos);
  EXPECT_EQ(r.asks[0].details.at("itemId"), "call_mock000002");
  EXPECT_EQ(json::serialize(approval_result(false, Decision::accept)), R"({"decision":"accept"})");
  EXPECT_EQ(json::serialize(approval_result(false, Decision::decline)), R"({"decision":"decline"})");
  EXPECT_EQ(json::serialize(approval_result(true, Decision::cancel)), R"({"decision":"abort"})");
  EXPECT_EQ(r.end->status, "completed");
}

TEST(CodexGolden, InterruptedTurnEndsInterrupted) {
  const Replay r = replay("interrupt");
  ASSERT_TRUE(r.end.has_value());
  EXPECT_EQ(r.end->status, "interrupted");
  EXPECT_EQ(concatenated_deltas(r).rfind("Starting", 0), 0u);
  for (const Event& e : r.events) EXPECT_NE(e.type, AGENTRY_EVENT_MESSAGE_COMPLETED);
}

TEST(CodexGolden, FailedTurnCarriesTheErrorAndANotice) {
  const Replay r = replay("fail");
  ASSERT_TRUE(r.end.has_value());
  EXPECT_EQ(r.end->status, "failed");
  EXPECT_NE(r.end->message.find("high demand"), std::string::npos);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].type, AGENTRY_EVENT_NOTICE);
  EXPECT_EQ(r.payloads[0].at("level"), "error");
  EXPECT_EQ(r.payloads[0].at("message").as_string(), r.end->message);
}

TEST(CodexGolden, ResumedThreadCountsOnlyTheNewTurnsUsage) {
  const Replay r = replay("resume");
  EXPECT_FALSE(r.thread_id.empty());
  std::vector<json::object> usage;
  bool deprecation_notice = false;
  for (std::size_t i = 0; i < r.events.size(); ++i) {
    if (r.events[i].type == AGENTRY_EVENT_USAGE) usage.push_back(r.payloads[i]);
    if (r.events[i].type == AGENTRY_EVENT_NOTICE) deprecation_notice = true;
  }
  EXPECT_TRUE(deprecation_notice);  // shown as info, not dropped
  ASSERT_EQ(usage.size(), 1u);
  // The history's totals (reported on resume, for the earlier turn) are the baseline:
  // only the new turn's tokens count.
  std::vector<int64_t> raw;
  std::ifstream in(std::string(AGENTRY_CODEX_GOLDEN_DIR) + "/resume.jsonl");
  for (std::string line; std::getline(in, line);) {
    const json::object msg = json::parse(line).as_object();
    if (msg.contains("method") && msg.at("method") == "thread/tokenUsage/updated")
      raw.push_back(msg.at("params").at("tokenUsage").at("total").at("totalTokens").as_int64());
  }
  ASSERT_EQ(raw.size(), 2u);
  EXPECT_EQ(usage[0].at("totalTokens").as_int64(), raw[1] - raw[0]);
  EXPECT_EQ(r.end->status, "completed");
}

TEST(CodexNormalizer, UnknownItemTypesBecomeGenericToolEvents) {
  Normalizer n;
  const json::object item{{"type", "holographicCall"}, {"id", "x1"}, {"status", "completed"}};
  auto started = n.on_notification("item/started", json::object{{"item", item}});
  auto completed = n.on_notification("item/completed", json::object{{"item", item}});
  ASSERT_EQ(started.size(), 1u);
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_EQ(started[0].type, AGENTRY_EVENT_TOOL_STARTED);
  EXPECT_EQ(json::parse(started[0].payload).at("tool"), "holographicCall");
  EXPECT_EQ(completed[0].type, AGENTRY_EVENT_TOOL_COMPLETED);
}

TEST(CodexNormalizer, OtherThreadsAreIgnored) {
  Normalizer n;
  n.set_thread("mine");
  EXPECT_TRUE(
      n.on_notification("item/agentMessage/delta", json::object{{"threadId", "other"}, {"itemId", "m"}, {"delta", "x"}})
          .empty());
  EXPECT_EQ(
      n.on_notification("item/agentMessage/delta", json::object{{"threadId", "mine"}, {"itemId", "m"}, {"delta", "x"}})
          .size(),
      1u);
}

TEST(CodexNormalizer, ReasoningAndFileChangesMapToTheirEvents) {
  Normalizer n;
  auto reasoning = n.on_notification(
      "item/completed",
      json::object{{"item", {{"type", "reasoning"}, {"id", "r"}, {"summary", json::array{"think"}}}}});
  ASSERT_EQ(reasoning.size(), 1u);
  EXPECT_EQ(reasoning[0].type, AGENTRY_EVENT_REASONING);
  const json::object change{{"type", "fileChange"},
                            {"id", "c"},
                            {"status", "completed"},
                            {"changes", json::array{{{"path", "a.txt"}, {"kind", {{"type", "add"}}}, {"diff", "+x"}}}}};
  auto started = n.on_notification("item/started", json::object{{"item", change}});
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(json::parse(started[0].payload).at("path"), "a.txt");
  auto ask =
      approval_ask("item/fileChange/requestApproval", json::object{{"itemId", "c"}, {"reason", "write"}}, n.item("c"));
  ASSERT_TRUE(ask.has_value());
  EXPECT_EQ(ask->kind, "file_change");
  EXPECT_NE(ask->summary.find("a.txt"), std::string::npos);
  auto done = n.on_notification("item/completed", json::object{{"item", change}});
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(json::parse(done[0].payload).at("changes").as_array().size(), 1u);
}

TEST(CodexNormalizer, StreamedOutputAndReasoningAreEphemeralDeltas) {
  Normalizer n;
  auto output = n.on_notification("item/commandExecution/outputDelta",
                                  json::object{{"itemId", "call_1"}, {"delta", "line1\n"}, {"turnId", "t"}});
  ASSERT_EQ(output.size(), 1u);
  EXPECT_EQ(output[0].type, AGENTRY_EVENT_TOOL_OUTPUT_DELTA);
  EXPECT_EQ(output[0].flags, AGENTRY_EVENT_FLAG_EPHEMERAL);
  EXPECT_EQ(json::parse(output[0].payload), (json::object{{"toolCallId", "call_1"}, {"text", "line1\n"}}));
  for (const char* method : {"item/reasoning/summaryTextDelta", "item/reasoning/textDelta"}) {
    auto thinking = n.on_notification(method, json::object{{"itemId", "r"}, {"delta", "hmm"}, {"summaryIndex", 0}});
    ASSERT_EQ(thinking.size(), 1u) << method;
    EXPECT_EQ(thinking[0].type, AGENTRY_EVENT_REASONING_DELTA);
    EXPECT_EQ(thinking[0].flags, AGENTRY_EVENT_FLAG_EPHEMERAL);
    EXPECT_EQ(json::parse(thinking[0].payload).at("text"), "hmm");
  }
}

TEST(CodexNormalizer, PlanUpdatesAreRecordedWhole) {
  Normalizer n;
  auto plan = n.on_notification(
      "turn/plan/updated",
      json::object{{"turnId", "t"},
                   {"explanation", "two steps"},
                   {"plan", json::array{{{"step", "read"}, {"status", "completed"}},
                                        {{"step", "write"}, {"status", "inProgress"}}}}});
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].type, AGENTRY_EVENT_PLAN);
  EXPECT_EQ(plan[0].flags, 0u);
  const json::value payload = json::parse(plan[0].payload);
  EXPECT_EQ(payload.at("explanation"), "two steps");
  EXPECT_EQ(payload.at("steps").as_array().at(1), (json::object{{"step", "write"}, {"status", "in_progress"}}));
}

TEST(CodexNormalizer, TheTurnsLastDiffIsRecordedWhenItEnds) {
  Normalizer n;
  n.set_turn("t");
  for (const char* diff : {"--- a\n+++ b\n+one\n", "--- a\n+++ b\n+one\n+two\n"}) {
    auto live = n.on_notification("turn/diff/updated", json::object{{"turnId", "t"}, {"diff", diff}});
    ASSERT_EQ(live.size(), 1u);
    EXPECT_EQ(live[0].type, AGENTRY_EVENT_DIFF);
    EXPECT_EQ(live[0].flags, AGENTRY_EVENT_FLAG_EPHEMERAL);
  }
  auto end = n.on_notification("turn/completed",
                               json::object{{"turn", {{"id", "t"}, {"status", "completed"}, {"items", json::array()}}}});
  ASSERT_EQ(end.size(), 1u);
  EXPECT_EQ(end[0].type, AGENTRY_EVENT_DIFF);
  EXPECT_EQ(end[0].flags, 0u) << "the final diff is kept";
  EXPECT_EQ(json::parse(end[0].payload).at("diff"), "--- a\n+++ b\n+one\n+two\n");
  ASSERT_TRUE(n.turn_end().has_value());
}

TEST(CodexApprovals, LegacyRequestsUseReviewDecisions) {
  auto ask = approval_ask("execCommandApproval",
                          json::object{{"command", json::array{"rm", "-rf", "x"}}, {"callId", "c"}}, nullptr);
  ASSERT_TRUE(ask.has_value());
  EXPECT_TRUE(ask->legacy);
  EXPECT_EQ(ask->summary, "run command: rm -rf x");
  EXPECT_EQ(json::serialize(approval_result(true, Decision::accept)), R"({"decision":"approved"})");
  EXPECT_EQ(json::serialize(approval_result(true, Decision::decline)), R"({"decision":"denied"})");
  EXPECT_FALSE(approval_ask("item/tool/requestUserInput", json::object{}, nullptr).has_value());
}

}  // namespace
}  // namespace agentry::codex

// The acp backend's translation of ACP updates into events, without a process.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "agentry/plugin/events.h"
#include "translator.hpp"

namespace agentry::acp {
namespace {

namespace json = boost::json;

json::value update(std::string_view body) {
  return json::object{{"sessionId", "s"}, {"update", json::parse(body)}};
}

std::string types(const std::vector<Event>& events) {
  std::string out;
  for (const Event& e : events) out += std::to_string(e.type) + ",";
  return out;
}

TEST(AcpTranslator, ChunksOfOneKindAreOneMessageClosedByAnythingElse) {
  Translator t;
  auto a = t.update(update(R"({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hel"}})"));
  auto b = t.update(update(R"({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"lo"}})"));
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].type, AGENTRY_EVENT_MESSAGE_DELTA);
  EXPECT_EQ(b[0].payload.at("itemId"), a[0].payload.at("itemId"));
  auto c = t.update(update(R"({"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hmm"}})"));
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].type, AGENTRY_EVENT_MESSAGE_COMPLETED);
  EXPECT_EQ(c[0].payload.at("text"), "Hello");
  EXPECT_EQ(c[1].type, AGENTRY_EVENT_REASONING_DELTA);
  auto end = t.end_turn("failed");
  ASSERT_EQ(end.size(), 1u);
  EXPECT_EQ(end[0].type, AGENTRY_EVENT_REASONING);
  EXPECT_EQ(end[0].payload.at("text"), "hmm");
  EXPECT_TRUE(t.end_turn("failed").empty());
}

TEST(AcpTranslator, ToolCallsStartOnceAndCompleteWithTheirOutput) {
  Translator t;
  auto started = t.update(update(
      R"({"sessionUpdate":"tool_call","toolCallId":"c1","title":"List","kind":"execute","status":"pending","rawInput":{"command":["ls","-l"]}})"));
  ASSERT_EQ(types(started), std::to_string(AGENTRY_EVENT_TOOL_STARTED) + ",");
  EXPECT_EQ(started[0].payload.at("tool"), "command");
  EXPECT_EQ(started[0].payload.at("command"), "ls -l");
  EXPECT_TRUE(t.update(update(R"({"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"in_progress"})")).empty());
  auto done = t.update(update(
      R"({"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"a b"}}]})"));
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].payload.at("status"), "completed");
  EXPECT_EQ(done[0].payload.at("output"), "a b");
  // A late update to a call that ended says nothing; one still open at the end is closed.
  EXPECT_TRUE(t.update(update(R"({"sessionUpdate":"tool_call_update","toolCallId":"c1","title":"x"})")).empty());
  t.update(update(R"({"sessionUpdate":"tool_call","toolCallId":"c2","title":"Read a","kind":"read","locations":[{"path":"/w/a"}]})"));
  auto end = t.end_turn("declined");
  ASSERT_EQ(end.size(), 1u);
  EXPECT_EQ(end[0].payload.at("toolCallId"), "c2");
  EXPECT_EQ(end[0].payload.at("tool"), "read");
  EXPECT_EQ(end[0].payload.at("status"), "declined");
}

TEST(AcpTranslator, UnknownAndReplayedKindsSayNothing) {
  Translator t;
  EXPECT_TRUE(t.update(update(R"({"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"}})")).empty());
  EXPECT_TRUE(t.update(update(R"({"sessionUpdate":"available_commands_update","availableCommands":[]})")).empty());
  EXPECT_TRUE(t.update(update(R"({"sessionUpdate":"something_new"})")).empty());
  EXPECT_TRUE(t.update(json::value(42)).empty());
}

TEST(AcpTranslator, ApprovalsNameTheCommandAndDecisionsPickTheMatchingOption) {
  const json::value params = json::parse(
      R"({"sessionId":"s","toolCall":{"toolCallId":"c","kind":"execute","title":"Run","rawInput":{"command":"make"}},
          "options":[{"optionId":"a2","kind":"allow_always"},{"optionId":"r1","kind":"reject_once"},
                     {"optionId":"a1","kind":"allow_once"}]})");
  const Event e = Translator::approval("acp-7", params);
  EXPECT_EQ(e.type, AGENTRY_EVENT_APPROVAL_REQUEST);
  EXPECT_EQ(e.payload.at("summary"), "make");
  EXPECT_EQ(e.payload.at("kind"), "command");
  EXPECT_EQ(Translator::choose_option(params, true), "a1");
  EXPECT_EQ(Translator::choose_option(params, false), "r1");
  EXPECT_EQ(Translator::choose_option(json::parse(R"({"options":[{"optionId":"x","kind":"allow_always"}]})"), false), "");
}

}  // namespace
}  // namespace agentry::acp

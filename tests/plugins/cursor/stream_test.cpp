// The cursor backend's stream parsing against the documented stream (tests/fixtures/cursor/
// session.jsonl: a turn with thinking, partial output, todos, an edit and a shell command).
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "agentry/plugin/events.h"
#include "stream.hpp"
#include "support/source_tree.hpp"

namespace agentry::cursor {
namespace {

namespace json = boost::json;

std::vector<Event> replay(TurnStream& stream) {
  std::ifstream in(test::source_tree() / "tests/fixtures/cursor/session.jsonl");
  std::vector<Event> out;
  std::string line;
  while (std::getline(in, line))
    for (Event& e : stream.line(line)) out.push_back(std::move(e));
  for (Event& e : stream.end()) out.push_back(std::move(e));
  return out;
}

std::vector<Event> of(const std::vector<Event>& events, uint16_t type) {
  std::vector<Event> out;
  for (const Event& e : events)
    if (e.type == type) out.push_back(e);
  return out;
}

TEST(CursorStream, TheDocumentedTurnBecomesDeltasWholeMessagesToolsAndAPlan) {
  TurnStream stream;
  const std::vector<Event> events = replay(stream);
  EXPECT_EQ(stream.chat_id(), "3f1c2a9e-7b4d-4e21-9a0c-5d8e6f2b1a47");
  EXPECT_TRUE(stream.has_result());
  EXPECT_FALSE(stream.result_is_error());
  ASSERT_EQ(of(events, AGENTRY_EVENT_CHECKPOINT).size(), 1u);

  // The flushes repeat what the deltas said: each segment completes once, whole.
  const auto messages = of(events, AGENTRY_EVENT_MESSAGE_COMPLETED);
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].payload.at("text"), "I'll fix `add()` and run the tests.");
  EXPECT_EQ(messages[1].payload.at("text"), "Fixed: `add()` now returns `a + b` and `make test` passes.");
  EXPECT_EQ(of(events, AGENTRY_EVENT_MESSAGE_DELTA).size(), 6u);
  EXPECT_EQ(of(events, AGENTRY_EVENT_REASONING).at(0).payload.at("text"), "Fix the operator in add.cpp, then run the tests.");

  const auto started = of(events, AGENTRY_EVENT_TOOL_STARTED);
  ASSERT_EQ(started.size(), 3u);
  EXPECT_EQ(started[0].payload.at("tool"), "todo");
  EXPECT_EQ(started[1].payload.at("tool"), "file_change");
  EXPECT_EQ(started[1].payload.at("path"), "/home/dev/calc/add.cpp");
  EXPECT_EQ(started[2].payload.at("tool"), "command");
  EXPECT_EQ(started[2].payload.at("command"), "make test");
  const auto completed = of(events, AGENTRY_EVENT_TOOL_COMPLETED);
  ASSERT_EQ(completed.size(), 3u);
  EXPECT_EQ(completed[1].payload.at("changes").at(0).at("kind"), "update");
  EXPECT_EQ(completed[2].payload.at("status"), "completed");
  EXPECT_EQ(completed[2].payload.at("exitCode"), 0);
  EXPECT_NE(std::string(completed[2].payload.at("output").as_string()).find("All 3 tests passed."), std::string::npos);

  const auto plan = of(events, AGENTRY_EVENT_PLAN);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(json::serialize(plan[0].payload.at("steps")),
            R"([{"step":"Fix add() in add.cpp","status":"in_progress"},{"step":"Run make test","status":"pending"}])");
  EXPECT_EQ(of(events, AGENTRY_EVENT_USAGE).at(0).payload.at("cachedInputTokens"), 9856);
}

TEST(CursorStream, RefusedCallsAreDeclinedAndNoiseIsShown) {
  TurnStream stream;
  auto started = stream.line(R"({"type":"tool_call","subtype":"started","call_id":"c\n1","tool_call":{"hookAdditionalContexts":[],"shellToolCall":{"args":{"command":"rm -rf x"}}}})");
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].payload.at("command"), "rm -rf x") << "the tool is the *ToolCall key, not a sibling";
  auto done = stream.line(R"({"type":"tool_call","subtype":"completed","call_id":"c\n1","tool_call":{"shellToolCall":{"result":{"rejected":{"reason":"needs approval"}}}}})");
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].payload.at("status"), "declined");
  EXPECT_EQ(done[0].payload.at("output"), "needs approval");
  auto noise = stream.line("Loading...");
  ASSERT_EQ(noise.size(), 1u);
  EXPECT_EQ(noise[0].type, AGENTRY_EVENT_NOTICE);
  // A shell "success" with a non-zero exit code is a failed command.
  stream.line(R"({"type":"tool_call","subtype":"started","call_id":"c2","tool_call":{"shellToolCall":{"args":{"command":"false"}}}})");
  auto failed = stream.line(R"({"type":"tool_call","subtype":"completed","call_id":"c2","tool_call":{"shellToolCall":{"result":{"success":{"exitCode":1,"stdout":""}}}}})");
  EXPECT_EQ(failed.at(0).payload.at("status"), "failed");
  // Without partial output, a whole assistant line is the message; the result ends the turn.
  auto whole = stream.line(R"({"type":"assistant","message":{"content":[{"type":"text","text":"done"}]}})");
  ASSERT_EQ(whole.size(), 1u);
  EXPECT_EQ(whole[0].type, AGENTRY_EVENT_MESSAGE_COMPLETED);
  stream.line(R"({"type":"result","subtype":"error","is_error":true,"result":"quota"})");
  EXPECT_TRUE(stream.result_is_error());
}

}  // namespace
}  // namespace agentry::cursor

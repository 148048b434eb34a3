// JSON-lines mode: each stdout line is one object of the agentry event protocol
// (docs/subprocess-protocol.md); stdin "jsonl" carries the prompt and later inputs.
#include <gtest/gtest.h>

#include "plugin_instance.hpp"
#include "support/temp_dir.hpp"

namespace agentry::test {
namespace {

namespace json = boost::json;

// A script printing `lines` (each a JSON text, single quotes not allowed).
std::string print_lines(std::initializer_list<std::string_view> lines) {
  std::string script;
  for (std::string_view line : lines) script += "echo '" + std::string(line) + "'; ";
  return script;
}

TEST(SubprocessJsonlMode, ProtocolLinesBecomeEvents) {
  SubprocessInstance instance;
  const std::string script = print_lines({
      R"({"type":"message.delta","text":"Hel"})",
      R"({"type":"message.completed","text":"Hello","itemId":"m1"})",
      R"({"type":"reasoning","text":"thinking","ephemeral":true})",
      R"({"type":"tool.started","toolCallId":"t1","tool":"command","command":"ls"})",
      R"({"type":"tool.completed","toolCallId":"t1","tool":"command","status":"completed","exitCode":0})",
      R"({"type":"usage","inputTokens":10,"outputTokens":5})",
      R"({"type":"notice","message":"fyi"})",
      R"({"type":"checkpoint","resumeToken":"session-42"})",
      R"(not json at all)",
      R"({"type":"mystery"})",
      R"({"type":"tool.started","tool":"command"})",
      R"({"type":"finished","outcome":"success","message":"all done"})",
  });
  ASSERT_EQ(instance.start(config_json(shell(script, {{"mode", "jsonl"}}))), AGENTRY_OK);
  const json::object finished = instance.wait_finished();
  EXPECT_EQ(finished, (json::object{{"outcome", "success"}, {"message", "all done"}, {"exitCode", 0}}));

  std::vector<std::pair<uint16_t, uint32_t>> kinds;
  for (const RecordedEvent& e : instance.host().events()) kinds.emplace_back(e.type, e.flags);
  const uint32_t eph = AGENTRY_EVENT_FLAG_EPHEMERAL;
  const std::vector<std::pair<uint16_t, uint32_t>> expected{
      {AGENTRY_EVENT_MESSAGE_DELTA, eph},  {AGENTRY_EVENT_MESSAGE_COMPLETED, 0}, {AGENTRY_EVENT_REASONING, eph},
      {AGENTRY_EVENT_TOOL_STARTED, 0},     {AGENTRY_EVENT_TOOL_COMPLETED, 0},    {AGENTRY_EVENT_USAGE, 0},
      {AGENTRY_EVENT_NOTICE, 0},           {AGENTRY_EVENT_CHECKPOINT, 0},        {AGENTRY_EVENT_NOTICE, 0},
      {AGENTRY_EVENT_NOTICE, 0},           {AGENTRY_EVENT_NOTICE, 0},            {AGENTRY_EVENT_FINISHED, AGENTRY_EVENT_FLAG_TERMINAL}};
  EXPECT_EQ(kinds, expected);

  const auto events = instance.host().events();
  EXPECT_EQ(events[1].payload, (json::object{{"text", "Hello"}, {"itemId", "m1"}}));
  EXPECT_EQ(events[4].payload.at("exitCode"), 0);
  EXPECT_EQ(events[5].payload, (json::object{{"inputTokens", 10}, {"outputTokens", 5}}));
  EXPECT_EQ(events[6].payload, (json::object{{"message", "fyi"}, {"level", "info"}}));
  EXPECT_EQ(events[7].payload, (json::object{{"resumeToken", "session-42"}}));
  EXPECT_EQ(events[8].payload.at("level"), "warning");
  EXPECT_EQ(events[8].payload.at("message"), "unparseable line from agent: not json at all");
  EXPECT_EQ(events[9].payload.at("message"), "unknown event type 'mystery' from agent");
  EXPECT_NE(json::serialize(events[10].payload).find("missing string field 'toolCallId'"), std::string::npos);
}

TEST(SubprocessJsonlMode, DeclaredErrorWinsOverExitCodeZero) {
  SubprocessInstance instance;
  const std::string script = print_lines({R"({"type":"finished","outcome":"error","message":"it broke"})"});
  ASSERT_EQ(instance.start(config_json(shell(script, {{"mode", "jsonl"}}))), AGENTRY_OK);
  EXPECT_EQ(instance.wait_finished(), (json::object{{"outcome", "error"}, {"message", "it broke"}, {"exitCode", 0}}));
}

TEST(SubprocessJsonlMode, NonzeroExitWinsOverDeclaredSuccess) {
  SubprocessInstance instance;
  const std::string script = print_lines({R"({"type":"finished","outcome":"success"})"}) + "exit 2";
  ASSERT_EQ(instance.start(config_json(shell(script, {{"mode", "jsonl"}}))), AGENTRY_OK);
  EXPECT_EQ(instance.wait_finished().at("message"), "command exited with code 2");
}

TEST(SubprocessJsonlMode, OverlongLinesAreDroppedWithANotice) {
  SubprocessInstance instance;
  const std::string script = "head -c 1100000 /dev/zero | tr '\\0' a; echo; " +
                             print_lines({R"({"type":"message.completed","text":"after"})"});
  ASSERT_EQ(instance.start(config_json(shell(script, {{"mode", "jsonl"}}))), AGENTRY_OK);
  EXPECT_EQ(instance.wait_finished().at("outcome"), "success");
  const auto notices = instance.events_of(AGENTRY_EVENT_NOTICE);
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(json::serialize(notices[0].payload).find("too long (1100000 bytes"), std::string::npos);
  EXPECT_EQ(instance.events_of(AGENTRY_EVENT_MESSAGE_COMPLETED).size(), 1u);
}

TEST(SubprocessJsonlMode, StdinJsonlCarriesThePromptAndInputs) {
  SubprocessInstance instance;
  // Echo every input line to a file; answer the first message and stop.
  const std::string script =
      "while IFS= read -r line; do printf '%s\\n' \"$line\" >> inputs.log; case \"$line\" in "
      "*'\"kind\":\"message\"'*) echo '{\"type\":\"message.completed\",\"text\":\"got it\"}'; exit 0;; "
      "esac; done; exit 9";
  ASSERT_EQ(instance.start(config_json(shell(script, {{"mode", "jsonl"}, {"stdin", "jsonl"}})),
                           with_prompt("do the thing")),
            AGENTRY_OK);
  EXPECT_EQ(instance.send_input(AGENTRY_INPUT_MESSAGE, R"({"text":"more please"})"), AGENTRY_OK);
  EXPECT_EQ(instance.wait_finished().at("outcome"), "success");
  EXPECT_EQ(instance.events_of(AGENTRY_EVENT_MESSAGE_COMPLETED).size(), 1u);

  const std::string log = read_file(instance.workspace().path() / "inputs.log");
  EXPECT_EQ(log,
            "{\"type\":\"input\",\"kind\":\"prompt\",\"text\":\"do the thing\"}\n"
            "{\"type\":\"input\",\"kind\":\"message\",\"inputId\":\"input-1\",\"text\":\"more please\"}\n");
}

TEST(SubprocessJsonlMode, InputNeedsStdinJsonl) {
  SubprocessInstance instance;
  ASSERT_EQ(instance.start(config_json(shell("sleep 30", {{"mode", "jsonl"}}))), AGENTRY_OK);
  EXPECT_EQ(instance.send_input(AGENTRY_INPUT_MESSAGE, R"({"text":"hi"})"), AGENTRY_ERR_UNSUPPORTED);
  EXPECT_EQ(instance.interrupt(), AGENTRY_OK);
  EXPECT_EQ(instance.wait_finished().at("outcome"), "interrupted");
  EXPECT_EQ(instance.send_input(AGENTRY_INPUT_MESSAGE, R"({"text":"hi"})"), AGENTRY_ERR_INVALID_STATE);
}

}  // namespace
}  // namespace agentry::test

#include "cli/timeline_render.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace agentry::cli {
namespace {
namespace json = boost::json;

std::string render(const char* text) { return render_timeline_event(json::parse(text).as_object()); }

TEST(TimelineRenderTest, AttemptAndRunBoundaries) {
  EXPECT_EQ(render(R"({"cursor":1,"kind":"attempt.started","attemptNumber":1,"at":"2026-04-18T10:35:02.000Z",
      "payload":{"attemptNumber":1,"sessionIndex":0,"backend":"mock"}})"),
            "10:35:02 ── attempt 1 · session 0 · mock ──\n");
  EXPECT_EQ(render(R"({"kind":"attempt.finished","attemptNumber":2,"at":"2026-04-18T10:35:04.000Z",
      "payload":{"outcome":"error","message":"tests are red","forced":true}})"),
            "10:35:04 ── attempt 2 error: tests are red (ended by agentry) ──\n");
  EXPECT_EQ(render(R"({"kind":"run.finished","at":"2026-04-18T10:35:04.000Z",
      "payload":{"status":"success","reason":"the agent finished"}})"),
            "10:35:04 ══ run success: the agent finished ══\n");
}

TEST(TimelineRenderTest, MessagesKeepTheirLinesAligned) {
  EXPECT_EQ(render(R"({"kind":"message.completed","at":"2026-04-18T10:35:03.000Z",
      "payload":{"text":"one\ntwo","role":"assistant"}})"),
            "10:35:03 agent: one\n"
            "                two\n");
  EXPECT_EQ(render(R"({"kind":"reasoning","at":"2026-04-18T10:35:03.000Z","payload":{"text":"hmm"}})"),
            "10:35:03 thinking: hmm\n");
}

TEST(TimelineRenderTest, PlansShowEachStepsStatus) {
  EXPECT_EQ(render(R"({"kind":"plan","at":"2026-04-18T10:35:03.000Z","payload":{"explanation":"two steps",
      "steps":[{"step":"read","status":"completed"},{"step":"write","status":"in_progress"},
               {"step":"test","status":"pending"}]}})"),
            "10:35:03 · plan\n"
            "           two steps\n"
            "           [x] read\n"
            "           [>] write\n"
            "           [ ] test\n");
}

TEST(TimelineRenderTest, DiffsAndDeltas) {
  EXPECT_EQ(render(R"({"kind":"diff","at":"2026-04-18T10:35:03.000Z","payload":{"diff":"+++ b/a\n+x\n"}})"),
            "10:35:03 · diff of the files the agent changed\n"
            "         │ +++ b/a\n"
            "         │ +x\n");
  for (const char* kind : {"reasoning.delta", "tool.output.delta", "message.delta"})
    EXPECT_EQ(render_timeline_event(json::object{{"kind", kind}, {"payload", {{"text", "x"}}}}), "") << kind;
}

TEST(TimelineRenderTest, ToolCallsShowCommandOutputAndFailures) {
  EXPECT_EQ(render(R"({"kind":"tool.started","at":"2026-04-18T10:35:03.000Z","payload":{"tool":"command","command":"ls"}})"),
            "10:35:03 $ ls\n");
  EXPECT_EQ(render(R"({"kind":"tool.completed","at":"2026-04-18T10:35:03.000Z",
      "payload":{"status":"failed","output":"a\nb\n","exitCode":2}})"),
            "         │ a\n"
            "         │ b\n"
            "         [failed, exit 2]\n");
  std::string many;
  for (int i = 0; i < 25; ++i) many += "line\\n";
  auto long_output = render(("{\"kind\":\"tool.completed\",\"at\":\"2026-04-18T10:35:03.000Z\",\"payload\":{\"status\":"
                             "\"completed\",\"output\":\"" + many + "\",\"exitCode\":0}}").c_str());
  EXPECT_NE(long_output.find("… (5 more lines)"), std::string::npos) << long_output;
}

TEST(TimelineRenderTest, NoticesUsageAndUnknownKinds) {
  EXPECT_EQ(render(R"({"kind":"notice","at":"2026-04-18T10:35:03.000Z","payload":{"level":"info","message":"hi"}})"),
            "10:35:03 · hi\n");
  EXPECT_EQ(render(R"({"kind":"notice","at":"2026-04-18T10:35:03.000Z","payload":{"level":"warning","message":"careful"}})"),
            "10:35:03 ! careful\n");
  EXPECT_EQ(render(R"({"kind":"usage","at":"2026-04-18T10:35:03.000Z","payload":{"inputTokens":10,"outputTokens":2}})"),
            "10:35:03 · usage inputTokens=10 outputTokens=2\n");
  EXPECT_EQ(render(R"({"kind":"custom.thing","at":"2026-04-18T10:35:03.000Z","payload":{"x":1}})"),
            "10:35:03 · custom.thing {\"x\":1}\n");
}

TEST(TimelineRenderTest, DeltasAndCheckpointsAreNotShown) {
  EXPECT_EQ(render(R"({"kind":"message.delta","payload":{"text":"he"}})"), "");
  EXPECT_EQ(render(R"({"kind":"session.checkpoint","payload":{"token":"t"}})"), "");
}

}  // namespace
}  // namespace agentry::cli

// agent-runner's timeline on the compat listener: its vocabulary, cursors that count
// every event from 1 with no gap (deltas included), a history whose attempts agree with
// the events, and a subscriber that comes after a quick run ended still getting
// run_finished (its CLI subscribes only after the start answered).
#include "daemon_fixture.hpp"

#include <functional>
#include <set>

namespace agentry::integration {
namespace {
namespace json = boost::json;
using namespace std::chrono_literals;

class CompatTimelineTest : public DaemonTest {
 protected:
  void SetUp() override {
    daemon_env_.emplace_back("AGENTRY_COMPAT_LISTEN", "ws://127.0.0.1:0/");
    DaemonTest::SetUp();
  }
  test::HttpClient compat() const { return daemon_->compat_client(); }

  /// Every envelope of the run's compat stream up to run_finished; `subscribed` runs once
  /// the stream is open.
  std::vector<json::object> read_until_finished(const std::string& run_id,
                                                const std::function<void()>& subscribed = {}) {
    auto stream = compat().sse("/api/runs/" + run_id + "/events/timeline");
    if (subscribed) subscribed();
    std::vector<json::object> envelopes;
    for (;;) {
      auto e = stream.expect_next(10s);
      auto envelope = json::parse(e.data).as_object();
      EXPECT_EQ(e.id, std::to_string(envelope.at("cursor").as_int64()));
      envelopes.push_back(envelope);
      if (envelope.at("event").at("type") == "run_finished") return envelopes;
    }
  }
  json::object history(const std::string& run_id) {
    auto r = compat().get("/api/runs/" + run_id + "/timeline");
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body).at("history").as_object();
  }
};

TEST_F(CompatTimelineTest, ALateSubscriberGetsTheWholeSessionNumberedFromOneWithoutGaps) {
  write_agent("talker", "mock", "{steps: [{say: \"hello from the agent\", deltas: 4}, {tool: {command: ls, output: a.txt}}]}");
  const auto id = start_agent_run("talker", "say hello");
  ASSERT_EQ(wait_until_settled(id), "success");

  const auto envelopes = read_until_finished(id);
  std::vector<std::string> types;
  std::int64_t expected = 1;
  std::string text;
  for (const auto& envelope : envelopes) {
    EXPECT_EQ(envelope.at("runId").as_string(), id);
    EXPECT_EQ(envelope.at("cursor").as_int64(), expected++) << json::serialize(envelope);
    const auto& event = envelope.at("event").as_object();
    types.emplace_back(event.at("type").as_string());
    if (event.at("type") == "agent_message_delta") text += event.at("text").as_string();
  }
  ASSERT_GE(types.size(), 4u);
  EXPECT_EQ(types.front(), "run_started");
  EXPECT_EQ(types[1], "attempt_started");
  EXPECT_EQ(types.back(), "run_finished");
  EXPECT_NE(text.find("hello from the agent"), std::string::npos) << text;
  const auto& summary = envelopes.back().at("event").at("summary").as_object();
  EXPECT_EQ(summary.at("status"), "success");
  EXPECT_EQ(summary.at("runId").as_string(), id);
  EXPECT_EQ(summary.at("totalAttemptCount"), 1);
  EXPECT_TRUE(summary.at("tasks").is_array());

  // The history counts the same events and shows the same text.
  auto h = history(id);
  EXPECT_EQ(h.at("runId").as_string(), id);
  EXPECT_EQ(h.at("lastCursor").as_int64(), static_cast<std::int64_t>(envelopes.size()));
  const auto& attempts = h.at("attempts").as_array();
  ASSERT_EQ(attempts.size(), 1u);
  const auto& attempt = attempts[0].as_object();
  EXPECT_EQ(attempt.at("attemptNumber"), 1);
  EXPECT_EQ(attempt.at("sessionIndex"), 0);
  EXPECT_EQ(attempt.at("transcript").as_string(), text);
  EXPECT_EQ(attempt.at("prompt").as_string().find("say hello") != json::string::npos, true) << attempt;
  EXPECT_EQ(attempt.at("live"), false);
  EXPECT_EQ(attempt.at("exitCode"), 0);
  EXPECT_FALSE(attempt.at("endedAt").is_null());
  EXPECT_NE(attempt.at("notices").as_string().find("tool"), json::string::npos) << attempt;
  EXPECT_EQ(attempt.at("provenance"), (json::object{{"kind", "task_runner"}}));
}

TEST_F(CompatTimelineTest, LiveDeltasAreNumberedAndTheHistoryFollowsThem) {
  // The agent speaks once the test has subscribed (the gate file in its cwd), so that
  // however loaded the machine, the deltas come live, each with the next cursor.
  write_agent("slow", "mock",
              "{steps: [" + json::serialize(gate_step()) +
                  ", {say: \"one two three four five six seven eight\", deltas: 8, rateHz: 20}]}");
  const auto id = start_agent_run("slow", "go");
  const auto envelopes = read_until_finished(id, [&] { open_gate(); });
  std::int64_t expected = 1;
  int deltas = 0;
  for (const auto& envelope : envelopes) {
    EXPECT_EQ(envelope.at("cursor").as_int64(), expected++);
    if (envelope.at("event").at("type") == "agent_message_delta") ++deltas;
  }
  EXPECT_GE(deltas, 2);
  auto h = history(id);
  EXPECT_EQ(h.at("lastCursor").as_int64(), static_cast<std::int64_t>(envelopes.size()));
  const auto transcript = std::string(h.at("attempts").as_array().at(0).at("transcript").as_string());
  // The completed message adds only what the deltas did not carry: the text appears once.
  EXPECT_EQ(transcript, "one two three four five six seven eight\n\n");
}

TEST_F(CompatTimelineTest, ARunNeverStartedHasAnEmptyHistoryAndUnknownRunsAreNotFound) {
  const auto id = create_run();
  auto h = history(id);
  EXPECT_EQ(h.at("attempts").as_array().size(), 0u);
  EXPECT_EQ(h.at("lastCursor"), 0);
  auto missing = compat().get("/api/runs/r_doesnotexist/timeline");
  EXPECT_EQ(missing.status, 404) << missing.body;
}

}  // namespace
}  // namespace agentry::integration

// Live streams over SSE: replay from a cursor, then live, with no gap and no duplicate.
#include "daemon_fixture.hpp"

#include <atomic>
#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;

/// Reads a run's timeline stream until run.finished, recording cursors in order.
struct TimelineCollector {
  std::vector<std::int64_t> cursors;
  std::string error;

  void read(test::HttpClient client, const std::string& run_id, std::int64_t stop_after = -1,
            test::Headers headers = {}) {
    try {
      auto sse = client.sse("/api/runs/" + run_id + "/events/timeline", headers);
      for (;;) {
        auto event = sse.next(std::chrono::seconds(30));
        if (!event) {
          error = "no event within 30 s after cursor " + (cursors.empty() ? std::string("none") : std::to_string(cursors.back()));
          return;
        }
        if (event->id.empty()) continue;  // ephemeral deltas carry no cursor
        cursors.push_back(std::stoll(event->id));
        if (json::parse(event->data).at("kind").as_string() == "run.finished") return;
        if (stop_after > 0 && cursors.back() >= stop_after) return;
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
};

bool strictly_one_to_n(const std::vector<std::int64_t>& cursors) {
  for (std::size_t i = 0; i < cursors.size(); ++i)
    if (cursors[i] != static_cast<std::int64_t>(i + 1)) return false;
  return true;
}

TEST_F(DaemonTest, TenThousandEventsReachEverySubscriberOnceAndInOrder) {
  write_agent("streamer", "mock", "{steps: [{events: 10000, kind: notice}]}");
  auto run = start_agent_run("streamer");
  TimelineCollector a, b, first_half;
  std::thread ta([&] { a.read(client(), run); });
  std::thread tb([&] { b.read(client(), run); });
  std::thread tc([&] { first_half.read(client(), run, 5000); });
  tc.join();
  ASSERT_TRUE(first_half.error.empty()) << first_half.error;
  // The third subscriber comes back where it left off.
  TimelineCollector second_half;
  second_half.read(client(), run, -1, {{"Last-Event-ID", std::to_string(first_half.cursors.back())}});
  ta.join();
  tb.join();
  ASSERT_TRUE(a.error.empty()) << a.error;
  ASSERT_TRUE(b.error.empty()) << b.error;
  ASSERT_TRUE(second_half.error.empty()) << second_half.error;

  // attempt.started, checkpoint, 10,000 notices, attempt.finished, run.finished
  EXPECT_EQ(a.cursors.size(), 10004u);
  EXPECT_TRUE(strictly_one_to_n(a.cursors));
  EXPECT_EQ(b.cursors, a.cursors);
  auto resumed = first_half.cursors;
  resumed.insert(resumed.end(), second_half.cursors.begin(), second_half.cursors.end());
  EXPECT_EQ(resumed, a.cursors);
  EXPECT_EQ(wait_until_settled(run), "success");
}

TEST_F(DaemonTest, AfterQueryReplaysFromTheStoreAndBadCursorsAreRejected) {
  write_agent("short", "mock", "{steps: [{say: hello}]}");
  auto run = start_agent_run("short");
  EXPECT_EQ(wait_until_settled(run), "success");
  auto sse = client().sse("/api/runs/" + run + "/events/timeline?after=2");
  auto first = sse.next(std::chrono::seconds(10));
  ASSERT_TRUE(first);
  EXPECT_EQ(first->id, "3");
  auto bad = client().get("/api/runs/" + run + "/events/timeline", {{"Last-Event-ID", "nope"}});
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(error_code_of(bad), "INVALID_REQUEST");
  auto missing = client().get("/api/runs/zzzzzzzzzz/events/timeline");
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(missing.header("content-type").find("application/json"), std::string::npos);
}

TEST_F(DaemonTest, SummaryDetailAndAuditStreamsFollowChanges) {
  auto summaries = client().sse("/api/events/run-summaries");
  auto id = create_run();
  auto upsert = summaries.next(std::chrono::seconds(10));
  ASSERT_TRUE(upsert);
  EXPECT_EQ(upsert->event, "") << "unnamed, so that EventSource.onmessage receives it";
  auto body = json::parse(upsert->data);
  EXPECT_EQ(body.at("type").as_string(), "summary_upsert");
  EXPECT_EQ(body.at("summary").at("runId").as_string(), id);

  auto detail = client().sse("/api/runs/" + id + "/events/detail");
  auto snapshot = detail.next(std::chrono::seconds(10));
  ASSERT_TRUE(snapshot);
  EXPECT_EQ(json::parse(snapshot->data).at("run").at("status").as_string(), "initialized");
  auto audit = client().sse("/api/runs/" + id + "/events/audit");
  auto initialized = audit.next(std::chrono::seconds(10));
  ASSERT_TRUE(initialized);
  EXPECT_EQ(initialized->id, "1");

  ASSERT_EQ(client().post_json("/api/runs/" + id + "/pinned", json::object{{"pinned", true}}).status, 200);
  auto changed = detail.next(std::chrono::seconds(10));
  ASSERT_TRUE(changed);
  EXPECT_TRUE(json::parse(changed->data).at("run").at("pinned").as_bool());
  auto pinned = audit.next(std::chrono::seconds(10));
  ASSERT_TRUE(pinned);
  EXPECT_EQ(pinned->id, "2");
  EXPECT_EQ(json::parse(pinned->data).at("type").as_string(), "run.pinned_set");

  ASSERT_EQ(client().post_json("/api/runs/" + id + "/archive", json::object{}).status, 200);
  ASSERT_EQ(client().del("/api/runs/" + id).status, 200);
  bool removed = false;
  for (int i = 0; i < 5 && !removed; ++i) {
    auto next = summaries.next(std::chrono::seconds(10));
    ASSERT_TRUE(next);
    removed = json::parse(next->data).at("type").as_string() == "summary_removed";
  }
  EXPECT_TRUE(removed);
}

TEST_F(DaemonTest, IdleStreamsSendHeartbeats) {
  start_daemon({{"AGENTRY_SSE_HEARTBEAT_MS", "100"}});
  auto id = create_run();
  auto audit = client().sse("/api/runs/" + id + "/events/audit");
  ASSERT_TRUE(audit.next(std::chrono::seconds(10)));  // run.initialized
  EXPECT_FALSE(audit.next(std::chrono::milliseconds(600)));
  EXPECT_GE(audit.heartbeats(), 2u);
}

TEST_F(DaemonTest, EventsASubscriberSawSurviveKill9) {
  write_agent("slow", "mock", "{steps: [{events: 100000, kind: notice, rateHz: 2000}]}");
  auto run = start_agent_run("slow");
  TimelineCollector seen;
  seen.read(client(), run, 300);
  ASSERT_TRUE(seen.error.empty()) << seen.error;
  daemon_->kill9();
  start_daemon();
  auto history = timeline(run);
  ASSERT_GE(history.size(), seen.cursors.size());
  for (std::size_t i = 0; i < seen.cursors.size(); ++i)
    EXPECT_EQ(history[i].at("cursor").as_int64(), seen.cursors[i]);
  // Nobody drives the run any more: startup reconciliation ended it.
  auto detail = get_run(run);
  EXPECT_EQ(detail.at("status").as_string(), "error");
  EXPECT_NE(std::string(detail.at("statusReason").as_string()).find("is gone"), std::string::npos);
}

}  // namespace
}  // namespace agentry::integration

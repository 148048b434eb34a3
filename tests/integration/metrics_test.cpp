// GET /metrics over the real daemon: Prometheus's text format, the families the docs
// list, values that follow a run, and the same protection as /api/.
#include "daemon_fixture.hpp"

#include <map>
#include <sstream>
#include <thread>

namespace agentry::integration {
namespace {

/// "name{labels}" -> value, from the text format; fails the test on a malformed line.
std::map<std::string, double> parse_samples(const std::string& text) {
  std::map<std::string, double> samples;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto space = line.rfind(' ');
    EXPECT_NE(space, std::string::npos) << line;
    if (space == std::string::npos) continue;
    samples[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  return samples;
}

class MetricsTest : public DaemonTest {
 protected:
  std::map<std::string, double> scrape(const test::Headers& headers = {}) {
    auto response = client().get("/metrics", headers);
    EXPECT_EQ(response.status, 200) << response.body;
    EXPECT_EQ(response.header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    return parse_samples(response.body);
  }
};

TEST_F(MetricsTest, EveryDocumentedFamilyHasHelpAndType) {
  start_daemon();
  (void)client().get("/api/runs");
  auto body = client().get("/metrics").body;
  for (const char* family :
       {"agentry_runs", "agentry_live_runs", "agentry_store_write_queue_depth", "agentry_store_commit_seconds",
        "agentry_store_write_jobs_total", "agentry_http_request_seconds", "agentry_http_requests_total",
        "agentry_stream_subscribers", "agentry_notification_backlog", "agentry_backends_loaded",
        "agentry_http_open_connections", "agentry_stream_memory_bytes", "agentry_stream_memory_unsent_bytes",
        "agentry_stream_memory_limit_bytes", "agentry_store_writer_cpu_seconds_total"}) {
    EXPECT_NE(body.find(std::string("# HELP ") + family + " "), std::string::npos) << family;
    EXPECT_NE(body.find(std::string("# TYPE ") + family + " "), std::string::npos) << family;
  }
  EXPECT_NE(body.find("agentry_store_commit_seconds_bucket{le=\"+Inf\"}"), std::string::npos);
  EXPECT_NE(body.find("agentry_http_request_seconds_count{class=\"runs\"}"), std::string::npos) << body;
  // The scrape's own connection is open while it is answered.
  EXPECT_GE(scrape()["agentry_http_open_connections{listener=\"main\"}"], 1);
}

TEST_F(MetricsTest, ARunMovesTheCountersWhileAndAfterItRuns) {
  write_agent("metered", "mock",
              "{steps: [{usage: {inputTokens: 120, cachedInputTokens: 20, outputTokens: 30}}, {say: 'half way'},"
              " {sleepMs: 1500}, {say: done}]}");
  start_daemon();
  auto before = scrape();
  auto run_id = start_agent_run("metered");
  ASSERT_FALSE(run_id.empty());

  // While it runs: it is live, counted as running, and its timeline is followed.
  auto stream = client().sse("/api/runs/" + run_id + "/events/timeline");
  ASSERT_TRUE(stream.next(std::chrono::seconds(10)));
  auto during = scrape();
  EXPECT_EQ(during["agentry_live_runs"], 1);
  EXPECT_EQ(during["agentry_runs{status=\"running\"}"], 1);
  EXPECT_GE(during["agentry_stream_subscribers{channel=\"timeline\"}"], 1);
  EXPECT_EQ(during["agentry_attempts_started_total"] - before["agentry_attempts_started_total"], 1);

  ASSERT_EQ(wait_until_settled(run_id), "success");
  // The status settles a moment before the daemon lets go of the run: wait for that, bounded.
  auto after = scrape();
  for (int i = 0; i < 100 && after["agentry_live_runs"] != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    after = scrape();
  }
  EXPECT_EQ(after["agentry_live_runs"], 0);
  EXPECT_EQ(after["agentry_runs{status=\"success\"}"], 1);
  EXPECT_EQ(after["agentry_runs{status=\"running\"}"], 0);
  EXPECT_EQ(after["agentry_attempts_finished_total{outcome=\"success\"}"], 1);
  EXPECT_EQ(after["agentry_sessions_finished_total{status=\"success\"}"], 1);
  EXPECT_EQ(after["agentry_tokens_total{kind=\"input\"}"], 120);
  EXPECT_EQ(after["agentry_tokens_total{kind=\"cached_input\"}"], 20);
  EXPECT_EQ(after["agentry_tokens_total{kind=\"output\"}"], 30);
  EXPECT_GT(after["agentry_timeline_events_total{persistence=\"durable\"}"],
            before["agentry_timeline_events_total{persistence=\"durable\"}"]);
  EXPECT_GT(after["agentry_store_write_jobs_total"], before["agentry_store_write_jobs_total"]);
  EXPECT_GT(after["agentry_store_commit_seconds_count"], before["agentry_store_commit_seconds_count"]);
  // The writer ran the run's writes: its CPU time grew.
  EXPECT_GT(after["agentry_store_writer_cpu_seconds_total"], before["agentry_store_writer_cpu_seconds_total"]);
  EXPECT_GE(after["agentry_http_requests_total{class=\"runs\",code=\"2xx\"}"], 1);
  EXPECT_GE(after["agentry_http_request_seconds_count{class=\"events\"}"], 1);
}

TEST_F(MetricsTest, RequestPathsNeverBecomeLabels) {
  start_daemon();
  for (int i = 0; i < 5; ++i) (void)client().get("/api/no-such-route-" + std::to_string(i));
  auto body = client().get("/metrics").body;
  EXPECT_EQ(body.find("no-such-route"), std::string::npos);
  EXPECT_NE(body.find("agentry_http_requests_total{class=\"fallback\",code=\"4xx\"}"), std::string::npos) << body;
}

TEST_F(MetricsTest, WithAuthOnTheBearerTokenIsNeeded) {
  start_daemon({{"AGENTRY_DAEMON_AUTH_ENABLED", "true"}, {"AGENTRY_DAEMON_TOKEN", "metrics-token"}});
  auto refused = client().get("/metrics");
  EXPECT_EQ(refused.status, 401);
  EXPECT_EQ(error_code_of(refused), "UNAUTHENTICATED");
  EXPECT_EQ(client().get("/metrics", {{"Authorization", "Bearer wrong"}}).status, 401);
  scrape({{"Authorization", "Bearer metrics-token"}});
}

TEST_F(MetricsTest, OnlyGetIsAllowed) {
  start_daemon();
  auto response = client().request("POST", "/metrics", "{}", {{"Content-Type", "application/json"}});
  EXPECT_EQ(response.status, 405);
  EXPECT_EQ(error_code_of(response), "METHOD_NOT_ALLOWED");
}

}  // namespace
}  // namespace agentry::integration

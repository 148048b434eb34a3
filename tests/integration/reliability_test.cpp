// Failure modes that used to freeze, wedge or break the daemon: an abort storm against
// backends that ignore interrupts, a shutdown with runs in every state, a connection
// flood, server errors, and a damaged stored row.
#include "daemon_fixture.hpp"

#include "support/socket_io.hpp"
#include "support/test_store.hpp"
#include "support/ws_client.hpp"


#include <cstdlib>
#include <future>
#include <thread>

namespace agentry::integration {
namespace {
namespace json = boost::json;
using namespace std::chrono_literals;

std::string fakes_dir() {
  const char* dir = std::getenv("AGENTRY_ABI_FAKES_DIR");
  return dir ? dir : "";
}


class ReliabilityTest : public DaemonTest {
 protected:
  void start_with_fakes(std::vector<std::pair<std::string, std::string>> env = {}) {
    ASSERT_FALSE(fakes_dir().empty()) << "AGENTRY_ABI_FAKES_DIR is not set (ctest sets it)";
    env.emplace_back("AGENTRY_PLUGIN_PATH", fakes_dir());
    start_daemon(std::move(env));
  }

  /// The main listener's open connections as /metrics reports them, this scrape's
  /// included; 0 when the scrape itself is refused.
  std::size_t open_connections() {
    auto response = client().get("/metrics");
    if (response.status != 200) return 0;
    const std::string name = "agentry_http_open_connections{listener=\"main\"} ";
    const auto at = response.body.find("\n" + name);
    if (at == std::string::npos) return 0;
    return static_cast<std::size_t>(std::stod(response.body.substr(at + 1 + name.size())));
  }

  /// Waits until every closed connection has given its slot back: the server learns of
  /// each close from its socket within milliseconds; 5 s is generous. Returns the open
  /// connections at the end, 1 (the scrape) when they all were freed.
  std::size_t connections_once_closed_ones_are_freed() {
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    std::size_t open = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      open = open_connections();
      if (open == 1) break;
      std::this_thread::sleep_for(50ms);
    }
    return open;
  }
};

TEST_F(ReliabilityTest, AbortsOfBackendsThatIgnoreThemNeverHoldRequests) {
  // 8 runs whose backend will not stop; the grace is long enough that anything waiting
  // on it would still be waiting when the checks below run.
  start_with_fakes({{"AGENTRY_INTERRUPT_GRACE_MS", "8000"}});
  write_agent("stubborn", "fake-never_terminal", "{}");
  write_agent("talker", "mock", "{steps: [{events: 400, kind: notice, rateHz: 200}]}");
  std::vector<std::string> stubborn;
  for (int i = 0; i < 8; ++i) stubborn.push_back(start_agent_run("stubborn"));
  const std::string talker = start_agent_run("talker");
  auto stream = client().sse("/api/runs/" + talker + "/events/timeline");

  std::vector<std::future<test::HttpResponse>> aborts;
  for (const auto& id : stubborn)
    aborts.push_back(std::async(std::launch::async, [this, id] {
      return client().post_json("/api/runs/" + id + "/abort", json::object{{"reason", "storm"}});
    }));
  for (auto& f : aborts) {
    auto response = f.get();
    ASSERT_EQ(response.status, 200) << response.body;
    EXPECT_TRUE(response.json().at("accepted").as_bool());
    // Answered while the backend still ignores the interrupt: nobody waited for it.
    EXPECT_EQ(response.json().at("run").at("status"), "running");
  }
  // Other clients are served meanwhile, and the runs are still within their grace.
  for (int i = 0; i < 20; ++i) ASSERT_EQ(client().get("/api/daemon").status, 200);
  EXPECT_EQ(run_status(stubborn.front()), "running");

  // Another run's stream is not interrupted: every event arrives, in order.
  std::int64_t expected = 1;
  while (expected <= 400) {
    auto event = stream.next(20s);
    ASSERT_TRUE(event) << "the stream stalled after " << expected - 1 << " notices";
    auto data = json::parse(event->data).as_object();
    if (data.at("kind") != "notice") continue;
    EXPECT_EQ(data.at("payload").at("index").as_int64(), expected);
    ++expected;
  }
  for (const auto& id : stubborn) EXPECT_EQ(wait_until_settled(id, 30s), "aborted");
  EXPECT_NE(get_run(stubborn.front()).at("statusReason").as_string().find("did not stop"), std::string::npos);
}

TEST_F(ReliabilityTest, ShutdownWithAbortedTimedOutAndNeverTerminalRunsEndsAndReleasesTheLock) {
  start_with_fakes({{"AGENTRY_INTERRUPT_GRACE_MS", "300"}});
  write_agent("stubborn", "fake-never_terminal", "{}");
  write_agent("slow", "fake-never_terminal", "{}", "timeoutSec: 1\n");
  // Aborted: its grace timer fires and the instance is poisoned.
  const std::string aborted = start_agent_run("stubborn");
  ASSERT_EQ(client().post_json("/api/runs/" + aborted + "/abort", json::object{}).status, 200);
  EXPECT_EQ(wait_until_settled(aborted), "aborted");
  // Timed out the same way, and one still running when SIGTERM arrives.
  const std::string timed_out = start_agent_run("slow");
  EXPECT_EQ(wait_until_settled(timed_out), "error");
  const std::string live = start_agent_run("stubborn");
  EXPECT_EQ(run_status(live), "running");

  const auto before = std::chrono::steady_clock::now();
  EXPECT_EQ(daemon_->stop(SIGTERM, 15s), 0) << daemon_->stderr_text();
  EXPECT_LT(std::chrono::steady_clock::now() - before, 10s) << "the daemon hung on its way out";
  // The lock is free: the next daemon starts without waiting.
  start_daemon({{"AGENTRY_DAEMON_LOCK_WAIT_MS", "0"}, {"AGENTRY_PLUGIN_PATH", fakes_dir()}});
  EXPECT_EQ(run_status(live), "aborted");
}

TEST_F(ReliabilityTest, AFloodOfIdleConnectionsLocksNobodyOut) {
  start_daemon({{"AGENTRY_HTTP_MAX_CONNECTIONS", "64"}});
  // 200 connections that never send a request: more than the limit.
  std::vector<test::UniqueFd> idle;
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  for (int i = 0; i < 200; ++i) idle.push_back(test::connect_tcp("127.0.0.1", daemon_->port(), deadline));
  // A new client still gets an answer: by evicting the oldest waiting connection, or a
  // 503 envelope, never a bare reset.
  int ok = 0;
  for (int i = 0; i < 10; ++i) {
    auto response = client().get("/api/daemon");
    if (response.status == 200) ++ok;
    else EXPECT_EQ(error_code_of(response), "UNAVAILABLE") << response.status;
  }
  EXPECT_EQ(ok, 10) << "idle connections should have been evicted to make room";
}

TEST_F(ReliabilityTest, WhenNoConnectionCanBeEvictedNewcomersGetA503Envelope) {
  start_with_fakes({{"AGENTRY_HTTP_MAX_CONNECTIONS", "16"}});
  write_agent("talker", "mock", "{steps: [{hang: true}]}");
  const std::string run = start_agent_run("talker");
  // Event streams are busy, not idle: they are never evicted.
  std::vector<test::SseReader> streams;
  for (int i = 0; i < 24; ++i) {
    try {
      streams.push_back(client().sse("/api/runs/" + run + "/events/timeline"));
    } catch (const std::exception&) {
      break;  // refused: the limit is reached
    }
  }
  EXPECT_GE(streams.size(), 8u);
  auto response = client().get("/api/daemon");
  EXPECT_EQ(response.status, 503) << response.body;
  EXPECT_EQ(error_code_of(response), "UNAVAILABLE");
  EXPECT_EQ(response.header("retry-after"), "1");
  streams.clear();
  EXPECT_EQ(connections_once_closed_ones_are_freed(), 1u);
  EXPECT_EQ(client().get("/api/daemon").status, 200);
}

TEST_F(ReliabilityTest, ClosedStreamsAndWebSocketsFreeTheirSlotsAtOnce) {
  // Heartbeats a minute apart: a stream must not need a write to learn its client left.
  start_daemon({{"AGENTRY_HTTP_MAX_CONNECTIONS", "16"}, {"AGENTRY_SSE_HEARTBEAT_MS", "60000"}});
  const std::string run = create_run();
  for (int round = 0; round < 3; ++round) {
    std::vector<test::SseReader> streams;
    std::string refusal;
    for (int i = 0; i < 24; ++i) {
      try {
        streams.push_back(client().sse("/api/runs/" + run + "/events/timeline"));
      } catch (const std::exception& e) {
        refusal = e.what();
        break;  // refused: every slot is taken
      }
    }
    ASSERT_GE(streams.size(), 8u) << "round " << round << ": " << refusal;
    EXPECT_EQ(client().get("/api/daemon").status, 503);
    streams.clear();  // each client closes its socket
    EXPECT_EQ(connections_once_closed_ones_are_freed(), 1u) << "round " << round << ": closed streams still hold their slots";
  }

  std::vector<test::WsClient> sockets;
  for (int i = 0; i < 24; ++i) {
    try {
      sockets.emplace_back("127.0.0.1", daemon_->port());
    } catch (const std::exception&) {
      break;
    }
  }
  ASSERT_GE(sockets.size(), 8u);
  sockets.clear();
  EXPECT_EQ(connections_once_closed_ones_are_freed(), 1u) << "closed WebSocket connections still hold their slots";
}

TEST_F(ReliabilityTest, AServerErrorIsLoggedWithARequestIdAndKeepsItsInternals) {
  auto id = create_run();
  // Break the store under the daemon: the next read of runs fails inside the database.
  test::exec_store_sql(home_, "DROP TABLE queued_messages");
  auto response = client().get("/api/runs/" + id);
  ASSERT_EQ(response.status, 500) << response.body;
  EXPECT_EQ(response.body.find("queued_messages"), std::string::npos) << response.body;
  const std::string request_id = response.header("x-request-id");
  ASSERT_FALSE(request_id.empty());
  EXPECT_EQ(response.json().at("error").at("details").at("requestId").as_string(), request_id);
  // The log has the request id and what actually went wrong.
  std::string log;
  for (int i = 0; i < 50 && log.find(request_id) == std::string::npos; ++i) {
    std::this_thread::sleep_for(20ms);
    log = daemon_->stderr_text();
  }
  const auto line_start = log.find(request_id);
  ASSERT_NE(line_start, std::string::npos) << log;
  const auto line = log.substr(log.rfind('\n', line_start) + 1, log.find('\n', line_start) - log.rfind('\n', line_start));
  EXPECT_NE(line.find("queued_messages"), std::string::npos) << line;
}

TEST_F(ReliabilityTest, ADamagedRunIsListedShownAndDeletableButNotActedOn) {
  auto good = create_run("good");
  auto bad = create_run("bad");
  ASSERT_EQ(daemon_->stop(), 0);
  // Unreadable JSON (on SQLite also invalid UTF-8: a lone 0xE9 byte; PostgreSQL refuses
  // invalid UTF-8 in text, so there the character is whole), in the whole frozen inputs
  // and in the summary a listing reads.
  const std::string e_acute = test::testing_on_postgresql() ? "chr(233)" : "char(233)";
  const std::string unreadable = "'{\"agentName\": \"w' || " + e_acute + " || '\", oops'";
  test::exec_store_sql(home_, "UPDATE runs SET frozen_json = " + unreadable + ", frozen_summary_json = " +
                                  unreadable + " WHERE id = '" + bad + "'");
  start_daemon();
  auto listing = client().get("/api/runs?global=true");
  ASSERT_EQ(listing.status, 200) << listing.body;
  bool saw_bad = false, saw_good = false;
  const auto body = listing.json();
  for (const auto& summary : body.at("runs").as_array()) {
    const auto& s = summary.as_object();
    if (s.at("runId").as_string() == bad) {
      saw_bad = true;
      EXPECT_NE(s.at("damaged").at("reason").as_string().find("frozen inputs"), std::string::npos);
      EXPECT_EQ(s.at("agent"), "worker");  // from its indexed column
    }
    if (s.at("runId").as_string() == good) saw_good = !s.contains("damaged");
  }
  EXPECT_TRUE(saw_bad);
  EXPECT_TRUE(saw_good);
  EXPECT_EQ(client().get("/api/runs/" + bad).status, 200);
  auto resumed = client().post_json("/api/runs/" + bad + "/resume", json::object{});
  EXPECT_EQ(resumed.status, 422) << resumed.body;
  EXPECT_NE(resumed.body.find("damaged"), std::string::npos);
  ASSERT_EQ(client().post_json("/api/runs/" + bad + "/archive", json::object{}).status, 200);
  ASSERT_EQ(client().del("/api/runs/" + bad).status, 200);
  EXPECT_EQ(all_run_ids(), std::vector<std::string>{good});
}

}  // namespace
}  // namespace agentry::integration

// Slow hooks hold nobody else up: while 8 runs' hooks sleep (4 beforeAttempt, 4
// afterExit, a minute each), another run's events reach a subscriber as fast as they
// did before, its timeoutSec fires on time, and a schedule due meanwhile starts its run
// on time. Hooks and git run on the blocking pool as steps of their run's strand
// (core/blocking_pool.hpp); the 4 threads that run every strand and timer stay free.
// Then an abort ends the gated runs and a shutdown the others, killing their hooks.
//
// On a 2-core machine shared with builds, any one sample can be preempted for a few
// hundred ms, with hooks or without. So events compare their 90th percentile with the one
// measured before the hooks (a run whose strand waited on a hook would have all of them
// late), and each of the three may take up to three tries to be on time once: none
// would be if hooks held the threads they need.
#include "daemon_fixture.hpp"

#include "core/clock.hpp"

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <thread>

namespace agentry::integration {
namespace {
namespace fs = std::filesystem;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr int sleepers_per_phase = 4;

class BlockingWorkTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    // Notices paced at 20/s with CLOCK_MONOTONIC stamps (the mock's "timestamps"), after
    // half a second in which the subscriber connects, so every notice arrives live.
    write_agent("talker", "mock",
                "{steps: [{sleepMs: 500}, {events: 30, kind: notice, rateHz: 20, timestamps: true}]}");
    write_agent("hanger", "mock", "{steps: [{hang: true}]}", "timeoutSec: 1\n");
    write_agent("quick", "mock", "{steps: [{say: done}]}");
    // Each hook writes its pid (for the test to see it running, and gone) and sleeps.
    const std::string sleepy =
        "cat > /dev/null; sleep 60 & echo $! > \"$(dirname \"$0\")/pids/$AGENTRY_RUN_ID\"; wait\n";
    write_script("assignments/held-before/sleepy.sh", sleepy);
    write_script("assignments/held-after/sleepy.sh", sleepy);
    write_assignment("held-before",
                     "hooks:\n  - {id: sleepy, phase: beforeAttempt, run: [./sleepy.sh], timeoutSec: 120}\n");
    write_assignment("held-after", "hooks:\n  - {id: sleepy, phase: afterExit, run: [./sleepy.sh], timeoutSec: 120}\n");
    fs::create_directories(config_ / "assignments/held-before/pids");
    fs::create_directories(config_ / "assignments/held-after/pids");
  }

  std::string start(const std::string& agent, const std::string& assignment = "") {
    json::object body{{"agent", agent}, {"callerCwd", work_.string()}, {"overrides", {{"message", "go"}}}};
    if (!assignment.empty()) body["assignment"] = assignment;
    auto response = client().post_json("/api/runs", body);
    EXPECT_EQ(response.status, 201) << response.body;
    return response.status == 201 ? std::string(response.json().at("run").at("runId").as_string()) : "";
  }
  static std::string read_text(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  /// The pid the run's hook wrote, once it did; 0 after 10 s without.
  pid_t hook_pid(const std::string& assignment, const std::string& run) {
    const auto file = config_ / "assignments" / assignment / "pids" / run;
    for (int i = 0; i < 400; ++i) {
      auto text = read_text(file);
      if (!text.empty() && text.back() == '\n') return static_cast<pid_t>(std::stol(text));
      std::this_thread::sleep_for(25ms);
    }
    ADD_FAILURE() << "the hook of run " << run << " never started";
    return 0;
  }
  /// Running (not gone, not a zombie nobody reaped).
  static bool alive(pid_t pid) {
    auto stat = read_text("/proc/" + std::to_string(pid) + "/stat");
    const auto close = stat.rfind(')');
    return !stat.empty() && !(close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z');
  }
  static bool gone_within(pid_t pid, std::chrono::milliseconds within) {
    const auto deadline = Clock::now() + within;
    while (alive(pid)) {
      if (Clock::now() > deadline) return false;
      std::this_thread::sleep_for(25ms);
    }
    return true;
  }

  /// Starts a talker and follows its timeline: each notice's delay, in ms, from its emit
  /// (in the mock) to its arrival here, sorted.
  std::vector<double> event_delays() {
    const auto run = start("talker");
    auto sse = client().sse("/api/runs/" + run + "/events/timeline");
    std::vector<double> delays;
    for (;;) {
      auto event = sse.next(10s);
      if (!event) break;
      const auto arrived = Clock::now().time_since_epoch().count();
      auto envelope = json::parse(event->data).as_object();
      if (envelope.at("kind") == "run.finished") break;
      if (envelope.at("kind") != "notice") continue;
      const auto* stamp = envelope.at("payload").as_object().if_contains("emittedAtNs");
      if (!stamp) continue;
      delays.push_back(static_cast<double>(arrived - stamp->to_number<std::int64_t>()) / 1e6);
    }
    std::sort(delays.begin(), delays.end());
    return delays;
  }
  static double p90(const std::vector<double>& sorted) {
    return sorted.empty() ? 1e9 : sorted[sorted.size() * 9 / 10];
  }

  /// The first of up to three measurements under `bound_ms`, else the least; all shown.
  static double on_time_once(const char* what, double bound_ms, const std::function<double()>& measure) {
    double best = 1e9;
    for (int i = 0; i < 3 && best >= bound_ms; ++i) {
      const double late = measure();
      std::cout << what << ": " << late << " ms\n";
      best = std::min(best, late);
    }
    return best;
  }

  /// How late a `timeoutSec: 1` run's attempt ended, past a second after its agent
  /// started (its first event, the mock's checkpoint): ms.
  double timeout_lateness() {
    const auto run = start("hanger");
    EXPECT_EQ(wait_until_settled(run, 10s), "error");
    auto detail = get_run(run);
    EXPECT_EQ(detail.at("statusReason"), "timed out after 1 s") << json::serialize(detail);
    const auto events = timeline(run);
    const auto& attempt = detail.at("sessions").at(0).at("attempts").at(0);
    auto started = events.empty() ? std::nullopt : core::parse_iso8601(events.front().at("at").as_string());
    auto ended = core::parse_iso8601(attempt.at("endedAt").as_string());
    EXPECT_TRUE(started && ended) << json::serialize(attempt);
    return started && ended ? static_cast<double>(*ended - *started - 1000) : 1e9;
  }

  /// Sets a schedule due in a second on a ready run: how late, in ms, the run started.
  double schedule_lateness() {
    json::object body{{"agent", "quick"}, {"callerCwd", work_.string()}, {"overrides", {{"message", "go"}}}};
    auto created = client().post_json("/api/runs/init", body);
    EXPECT_EQ(created.status, 201) << created.body;
    const std::string run(created.json().at("run").at("runId").as_string());
    EXPECT_EQ(client().post_json("/api/runs/" + run + "/ready", json::object{}).status, 200);
    EXPECT_EQ(client().put_json("/api/runs/" + run + "/schedule", json::object{{"delay", "1s"}}).status, 200);
    std::optional<json::object> fired, started;
    for (int i = 0; i < 200 && !(fired && started); ++i) {
      std::this_thread::sleep_for(50ms);
      const auto page = client().get("/api/runs/" + run + "/audit").json();
      for (const auto& e : page.at("events").as_array()) {
        if (e.at("type") == "schedule.fired") fired = e.as_object();
        if (e.at("type") == "run.started") started = e.as_object();
      }
    }
    if (!fired || !started) {
      ADD_FAILURE() << "the schedule of run " << run << " never fired";
      return 1e9;
    }
    auto due = core::parse_iso8601(fired->at("data").at("dueAt").as_string());
    auto at = core::parse_iso8601(started->at("at").as_string());
    EXPECT_TRUE(due && at);
    return due && at ? static_cast<double>(*at - *due) : 1e9;
  }
};

TEST_F(BlockingWorkTest, EightSleepingHooksDelayNoOtherRunsEventsTimeoutOrSchedule) {
  // Without sleeping hooks: what the machine gives today.
  const auto before = event_delays();
  ASSERT_EQ(before.size(), 30u);
  std::cout << "event delay without sleeping hooks: p90 " << p90(before) << " ms, worst " << before.back() << " ms\n";
  // What is late here: 100 ms on a machine that gives events within a few ms (a held
  // thread would hold them for the hooks' whole minute), more where the machine itself
  // is that slow today (a full test run on two cores: 34 ms p90, 83 ms worst).
  const double allowed_ms = std::max(100.0, 3 * before.back());
  std::cout << "allowed: " << allowed_ms << " ms\n";

  std::vector<std::pair<std::string, std::string>> sleepers;  // assignment, run
  for (int i = 0; i < sleepers_per_phase; ++i) {
    sleepers.emplace_back("held-before", start("quick", "held-before"));
    sleepers.emplace_back("held-after", start("quick", "held-after"));
  }
  std::vector<pid_t> pids;
  for (const auto& [assignment, run] : sleepers) pids.push_back(hook_pid(assignment, run));
  ASSERT_EQ(std::count(pids.begin(), pids.end(), 0), 0);

  // While all 8 sleep (more than the 4 threads every strand and timer share), one after
  // the other, so that each measures the hooks' effect and not the others' load.
  EXPECT_LT(on_time_once("event delay with 8 sleeping hooks, p90 past the one without", allowed_ms,
                         [&] {
                           const auto during = event_delays();
                           EXPECT_EQ(during.size(), 30u);
                           return p90(during) - p90(before);
                         }),
            allowed_ms);
  EXPECT_LT(on_time_once("timeout past its deadline", allowed_ms, [this] { return timeout_lateness(); }), allowed_ms);
  EXPECT_LT(on_time_once("schedule's start past its due time", allowed_ms, [this] { return schedule_lateness(); }),
            allowed_ms);
  for (pid_t pid : pids) EXPECT_TRUE(alive(pid)) << "a hook ended before the measurement did: it measured nothing";

  // The gated runs end as an abort ends them, their hooks killed at once.
  const auto asked = Clock::now();
  for (const auto& [assignment, run] : sleepers) {
    if (assignment != "held-before") continue;
    EXPECT_EQ(client().post_json("/api/runs/" + run + "/abort", json::object{{"reason", "enough"}}).status, 200);
  }
  for (std::size_t i = 0; i < sleepers.size(); ++i) {
    if (sleepers[i].first != "held-before") continue;
    EXPECT_EQ(wait_until_settled(sleepers[i].second, 10s), "aborted");
    EXPECT_EQ(get_run(sleepers[i].second).at("hookAudits").at(0).at("outcome"), "cancelled");
    EXPECT_TRUE(gone_within(pids[i], 3s)) << "the hook's process group outlived the abort";
  }
  EXPECT_LT(Clock::now() - asked, 5s);
  // afterExit hooks heed a shutdown, not an abort: stopping the daemon kills them.
  const auto stopping = Clock::now();
  EXPECT_EQ(daemon_->stop(SIGTERM, 20s), 0);
  EXPECT_LT(Clock::now() - stopping, 8s);
  for (std::size_t i = 0; i < sleepers.size(); ++i) {
    if (sleepers[i].first != "held-after") continue;
    EXPECT_TRUE(gone_within(pids[i], 3s)) << "an afterExit hook outlived the daemon";
  }
}

}  // namespace
}  // namespace agentry::integration

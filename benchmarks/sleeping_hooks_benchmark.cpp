// Load driver: run start latency and event latency of the real daemon, with and without
// 8 other runs whose beforeAttempt hooks sleep (60 s each). Hooks run on the blocking
// pool as steps of their run's strand (core/blocking_pool.hpp), so they should cost the
// other runs nothing; before, 4 of them held every thread that runs strands and timers.
//
// Each probe run is a mock agent that emits one stamped notice at once, waits 300 ms
// (its subscriber connects meanwhile), then 20 stamped notices at 100/s. The mock
// stamps CLOCK_MONOTONIC at emit ("timestamps"), so this process measures
//   start   POST /api/runs sent -> the agent's first notice emitted (the daemon commits
//           the run, its strand records the workspace baseline and starts the instance)
//   event   a notice emitted -> its arrival at an SSE subscriber of the run's timeline
// Cycles of (10 probes without sleepers; 8 sleepers started, their hooks asleep; 10
// probes with them; the sleepers aborted) interleave the two cases, so the machine's load
// weighs on both alike. AGENTRY_HOOK_BENCH_CYCLES (default 3) sets the cycles.
//
// Counters: start_p50_ms / start_p90_ms and event_p50_ms / event_p99_ms, each without
// sleepers (_idle) and with them (_hooks), and the ratios hooks/idle of the medians
// (start_ratio, event_ratio) and of the tails (start_p90_ratio, event_p99_ratio).
// The daemon binary comes from $AGENTRY_BIN, else <this program>/../bin/agentry.

#include "daemon_binary.hpp"
#include "support/daemon_process.hpp"
#include "support/http_client.hpp"
#include "support/temp_dir.hpp"

#include <benchmark/benchmark.h>

#include <boost/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <sys/stat.h>

namespace agentry::bench {
namespace {
namespace json = boost::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr int sleepers = 8;
constexpr int probes_per_phase = 10;

int cycles() {
  const char* c = std::getenv("AGENTRY_HOOK_BENCH_CYCLES");
  const int n = c ? std::atoi(c) : 3;
  return n > 0 ? n : 3;
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<std::size_t>(p * static_cast<double>(values.size())))];
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Latencies {
  std::vector<double> start_ms;
  std::vector<double> event_ms;
};

class Daemon {
 public:
  Daemon() {
    dir_.write_file("config/agents/probe/agent.md",
                    "---\nschemaVersion: 1\nbackend: mock\nbackendConfig:\n  mock:\n    steps: [{events: 1, kind: "
                    "notice, timestamps: true}, {sleepMs: 300}, {events: 20, kind: notice, rateHz: 100, timestamps: "
                    "true}]\n---\n");
    dir_.write_file("config/agents/quick/agent.md",
                    "---\nschemaVersion: 1\nbackend: mock\nbackendConfig:\n  mock:\n    steps: [{say: done}]\n---\n");
    auto hook = dir_.write_file(
        "config/assignments/held/sleepy.sh",
        "#!/bin/sh\ncat > /dev/null; sleep 60 & echo $! > \"$(dirname \"$0\")/pids/$AGENTRY_RUN_ID\"; wait\n");
    ::chmod(hook.c_str(), 0755);
    dir_.write_file("config/assignments/held/assignment.md",
                    "---\nschemaVersion: 1\nhooks:\n  - {id: sleepy, phase: beforeAttempt, run: [./sleepy.sh], "
                    "timeoutSec: 120}\n---\nWait.\n");
    std::filesystem::create_directories(dir_.path() / "config/assignments/held/pids");
    std::filesystem::create_directories(dir_.path() / "work");
    test::DaemonOptions options;
    options.home = dir_.path() / "home";
    options.config_dir = dir_.path() / "config";
    options.binary = daemon_binary();
    daemon_ = std::make_unique<test::DaemonProcess>(options);
    daemon_->start();
  }

  std::string start(const std::string& agent, const std::string& assignment = "") {
    json::object body{{"agent", agent},
                      {"callerCwd", (dir_.path() / "work").string()},
                      {"overrides", {{"message", "go"}}}};
    if (!assignment.empty()) body["assignment"] = assignment;
    auto r = daemon_->client().post_json("/api/runs", body);
    if (r.status != 201) throw std::runtime_error("cannot start a run: " + r.body);
    return std::string(r.json().at("run").at("runId").as_string());
  }

  /// Starts the sleepers and waits until every hook is asleep.
  std::vector<std::string> start_sleepers() {
    std::vector<std::string> runs;
    for (int i = 0; i < sleepers; ++i) runs.push_back(start("quick", "held"));
    for (const auto& run : runs) {
      const auto file = dir_.path() / "config/assignments/held/pids" / run;
      const auto deadline = Clock::now() + 30s;
      while (read_text(file).empty() || read_text(file).back() != '\n') {
        if (Clock::now() > deadline) throw std::runtime_error("the hook of run " + run + " never started");
        std::this_thread::sleep_for(10ms);
      }
    }
    return runs;
  }

  void abort_all(const std::vector<std::string>& runs) {
    auto client = daemon_->client();
    for (const auto& run : runs) client.post_json("/api/runs/" + run + "/abort", json::object{});
    for (const auto& run : runs) {
      const auto deadline = Clock::now() + 30s;
      while (client.get("/api/runs/" + run).json().at("run").at("status") == "running") {
        if (Clock::now() > deadline) throw std::runtime_error("run " + run + " did not end after its abort");
        std::this_thread::sleep_for(10ms);
      }
    }
  }

  /// One probe run: its start latency and the latency of each of its live notices.
  void probe(Latencies& out) {
    const auto sent = Clock::now().time_since_epoch().count();
    const std::string run = start("probe");
    auto sse = daemon_->client().sse("/api/runs/" + run + "/events/timeline");
    bool first = true;
    for (;;) {
      auto event = sse.next(120s);  // a daemon whose strands wait on hooks shows here
      if (!event) throw std::runtime_error("the timeline of run " + run + " stalled");
      const auto arrived = Clock::now().time_since_epoch().count();
      auto envelope = json::parse(event->data).as_object();
      if (envelope.at("kind") == "run.finished") return;
      if (envelope.at("kind") != "notice") continue;
      const auto* stamp = envelope.at("payload").as_object().if_contains("emittedAtNs");
      if (!stamp) continue;
      const auto emitted = stamp->to_number<std::int64_t>();
      if (first) out.start_ms.push_back(static_cast<double>(emitted - sent) / 1e6);
      else out.event_ms.push_back(static_cast<double>(arrived - emitted) / 1e6);
      first = false;
    }
  }

  void stop() { daemon_->stop(SIGTERM, 30s); }

 private:
  test::TempDir dir_;
  std::unique_ptr<test::DaemonProcess> daemon_;
};

void BM_SleepingHooks(benchmark::State& state) {
  for (auto _ : state) {
    Daemon daemon;
    Latencies idle, hooks;
    daemon.probe(idle);  // warm-up: the first run loads what later ones reuse
    idle = {};
    for (int cycle = 0; cycle < cycles(); ++cycle) {
      for (int i = 0; i < probes_per_phase; ++i) daemon.probe(idle);
      const auto held = daemon.start_sleepers();
      for (int i = 0; i < probes_per_phase; ++i) daemon.probe(hooks);
      daemon.abort_all(held);
    }
    daemon.stop();
    auto report = [&](const std::string& name, const std::vector<double>& without, const std::vector<double>& with,
                      double tail) {
      const std::string tail_name = tail == 0.9 ? "p90" : "p99";
      state.counters[name + "_p50_ms_idle"] = percentile(without, 0.5);
      state.counters[name + "_p50_ms_hooks"] = percentile(with, 0.5);
      state.counters[name + "_" + tail_name + "_ms_idle"] = percentile(without, tail);
      state.counters[name + "_" + tail_name + "_ms_hooks"] = percentile(with, tail);
      state.counters[name + "_ratio"] = percentile(with, 0.5) / percentile(without, 0.5);
      state.counters[name + "_" + tail_name + "_ratio"] = percentile(with, tail) / percentile(without, tail);
    };
    report("start", idle.start_ms, hooks.start_ms, 0.9);
    report("event", idle.event_ms, hooks.event_ms, 0.99);
    state.counters["probes"] = static_cast<double>(idle.start_ms.size() + hooks.start_ms.size());
  }
}
BENCHMARK(BM_SleepingHooks)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace agentry::bench

// Load driver: events from a plugin's emit() to SSE clients, through the real daemon.
// A mock run emits N timeline events, either as fast as the host accepts them (rate 0:
// throughput under saturation) or paced (latency at a sustainable rate); K subscribers
// read the run's timeline stream. Reported per configuration:
//   items_per_second  events delivered to each subscriber per second (first to last)
//   p50_us, p99_us    emit-to-client latency (the mock stamps each event with the
//                     system-wide monotonic clock; the client compares on receipt)
//   rss_mb            the daemon's peak resident set size during the run
// The daemon binary comes from $AGENTRY_BIN, else <this program>/../bin/agentry.

#include "support/daemon_process.hpp"
#include "support/http_client.hpp"
#include "support/temp_dir.hpp"

#include <benchmark/benchmark.h>

#include <boost/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

namespace agentry::bench {
namespace {
namespace json = boost::json;
using Clock = std::chrono::steady_clock;


std::filesystem::path daemon_binary() {
  if (const char* bin = std::getenv("AGENTRY_BIN")) return bin;
  return std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "bin" / "agentry";
}

long rss_kb(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return 0;
}

struct Subscriber {
  std::vector<std::int64_t> latencies_ns;
  Clock::time_point first{}, last{};
  std::size_t received = 0;
  std::string error;

  void read(test::HttpClient client, const std::string& run_id) {
    try {
      auto sse = client.sse("/api/runs/" + run_id + "/events/timeline");
      for (;;) {
        auto event = sse.next(std::chrono::seconds(60));
        if (!event) return void(error = "stream stalled");
        auto now = Clock::now();
        auto body = json::parse(event->data);
        const auto& kind = body.at("kind").as_string();
        if (kind == "run.finished") return;
        if (kind != "notice") continue;
        if (received++ == 0) first = now;
        last = now;
        if (auto* at = body.at("payload").as_object().if_contains("emittedAtNs"))
          latencies_ns.push_back(now.time_since_epoch().count() - at->to_number<std::int64_t>());
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
};

void BM_StreamDelivery(benchmark::State& state) {
  const int subscribers = static_cast<int>(state.range(0));
  const int rate_hz = static_cast<int>(state.range(1));
  // Unpaced runs measure throughput over 20,000 events; paced ones last 2 s.
  const int events_per_run = rate_hz == 0 ? 20000 : rate_hz * 2;
  test::TempDir dir;
  dir.write_file("config/agents/streamer/agent.md",
                 "---\nschemaVersion: 1\nbackend: mock\nbackendConfig:\n  mock:\n    steps:\n"
                 "      - sleepMs: 300\n      - events: " + std::to_string(events_per_run) +
                     "\n        kind: notice\n        timestamps: true\n        rateHz: " + std::to_string(rate_hz) +
                     "\n---\nStreamer.\n");
  test::DaemonOptions options;
  options.home = dir.path() / "home";
  options.config_dir = dir.path() / "config";
  options.binary = daemon_binary();
  test::DaemonProcess daemon(options);
  daemon.start();

  std::vector<std::int64_t> latencies;
  double rate_sum = 0;
  long peak_rss = 0;
  for (auto _ : state) {
    auto created = daemon.client().post_json(
        "/api/runs", json::object{{"agent", "streamer"}, {"callerCwd", dir.path().string()},
                                  {"overrides", {{"message", "stream"}}}});
    if (created.status != 201) return state.SkipWithError(created.body.c_str());
    std::string run_id(created.json().at("run").at("runId").as_string());
    std::vector<Subscriber> subs(static_cast<std::size_t>(subscribers));
    std::vector<std::thread> threads;
    for (auto& sub : subs) threads.emplace_back([&sub, &daemon, &run_id] { sub.read(daemon.client(), run_id); });
    std::atomic<bool> done{false};
    std::thread sampler([&] {
      while (!done) {
        peak_rss = std::max(peak_rss, rss_kb(daemon.pid()));
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
    for (auto& t : threads) t.join();
    done = true;
    sampler.join();
    for (auto& s : subs) {
      if (!s.error.empty()) return state.SkipWithError(s.error.c_str());
      if (s.received != static_cast<std::size_t>(events_per_run)) return state.SkipWithError("a subscriber missed events");
      double seconds = std::chrono::duration<double>(s.last - s.first).count();
      rate_sum += seconds > 0 ? static_cast<double>(s.received) / seconds : 0;
      latencies.insert(latencies.end(), s.latencies_ns.begin(), s.latencies_ns.end());
    }
    state.SetIterationTime(1);  // the figures are the counters below, not the loop time
  }
  daemon.stop();
  std::sort(latencies.begin(), latencies.end());
  auto percentile = [&](double p) {
    return latencies.empty() ? 0.0 : static_cast<double>(latencies[static_cast<std::size_t>(p * (latencies.size() - 1))]) / 1000.0;
  };
  state.counters["events_per_s_per_sub"] = rate_sum / static_cast<double>(subscribers * state.iterations());
  state.counters["p50_us"] = percentile(0.50);
  state.counters["p99_us"] = percentile(0.99);
  state.counters["rss_mb"] = static_cast<double>(peak_rss) / 1024.0;
}

BENCHMARK(BM_StreamDelivery)
    ->ArgNames({"subscribers", "rate_hz"})
    ->Args({1, 0})
    ->Args({100, 0})
    ->Args({1, 1000})
    ->Args({100, 1000})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace agentry::bench

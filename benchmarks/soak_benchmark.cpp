// Soak: many mock runs at once, each writing 200 durable notices a second (the mock's paced
// "events" step, "@mock" lines of the message to the agent `streamer` of benchmarks/config)
// with nobody watching, 100 and 400 runs, a fresh daemon for each. The runs start first
// (4 client threads); the window opens 1 s after the last one started and lasts
// AGENTRY_SOAK_SECONDS (default 20); then every run is aborted. Over the window:
//   cpu_cores      the daemon's CPU time (user + system, all threads) / the window
//   api_p50_ms, api_p99_ms, api_max_ms
//                  GET /api/runs/<id> of one of the runs every 5 ms over a keep-alive
//                  connection (api_requests of them)
//   events_per_s   durable timeline events the daemon wrote per second (its /metrics
//                  counter agentry_timeline_events_total{persistence="durable"}), against
//                  asked_per_s (runs x 200)
//   rss_mb         the daemon's peak resident set (VmHWM) at the end of the window
// With AGENTRY_BENCH_DAEMON=http://host:port the runs go to that daemon (bench_daemon.hpp):
// no cpu_cores and rss_mb, which are read from /proc.

#include "bench_daemon.hpp"
#include "keep_alive_connection.hpp"
#include "process_stats.hpp"
#include "support/temp_dir.hpp"

#include <benchmark/benchmark.h>

#include <boost/json.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace agentry::bench {
namespace {
namespace json = boost::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr int rate_hz = 200;

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

int soak_seconds() {
  const char* s = std::getenv("AGENTRY_SOAK_SECONDS");
  const int n = s ? std::atoi(s) : 20;
  return n > 0 ? n : 20;
}

/// The daemon's count of durable timeline events written.
double durable_events(const BenchDaemon& daemon) {
  return daemon.metric("agentry_timeline_events_total{persistence=\"durable\"}");
}

/// Starts `runs` runs from 4 threads; their ids.
std::vector<std::string> start_runs(const BenchDaemon& daemon, int runs, long events_each) {
  const std::string payload = json::serialize(json::object{
      {"agent", "streamer"},
      {"callerCwd", daemon.caller_cwd()},
      {"overrides",
       {{"message", "@mock {\"events\": " + std::to_string(events_each) + ", \"kind\": \"notice\", \"rateHz\": " +
                        std::to_string(rate_hz) + "}"}}}});
  std::vector<std::string> ids;
  std::mutex mutex;
  std::atomic<int> next{0};
  std::string failure;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      try {
        auto connection = daemon.connect();
        std::string body;
        while (next.fetch_add(1) < runs) {
          const int status = connection.post("/api/runs", payload, body);
          if (status != 201) throw std::runtime_error("POST /api/runs: HTTP " + std::to_string(status) + " " + body);
          const auto id = json::parse(body).at("run").at("runId").as_string();
          std::lock_guard lock(mutex);
          ids.emplace_back(id);
        }
      } catch (const std::exception& e) {
        std::lock_guard lock(mutex);
        if (failure.empty()) failure = e.what();
        next = runs;
      }
    });
  for (auto& t : threads) t.join();
  if (!failure.empty()) throw std::runtime_error(failure);
  return ids;
}

/// Aborts the runs and waits (up to 60 s) until the daemon drives none.
void abort_all(const BenchDaemon& daemon, const std::vector<std::string>& ids) {
  auto connection = daemon.connect();
  std::string body;
  for (const auto& id : ids) connection.post("/api/runs/" + id + "/abort", "{}", body);
  const auto deadline = Clock::now() + 60s;
  while (Clock::now() < deadline && daemon.metric("agentry_live_runs") > 0) std::this_thread::sleep_for(100ms);
}

void BM_Soak(benchmark::State& state) {
  const int runs = static_cast<int>(state.range(0));
  const int seconds = soak_seconds();
  test::TempDir dir;
  std::unique_ptr<BenchDaemon> daemon;
  try {
    daemon = std::make_unique<BenchDaemon>(BenchDaemonOptions{.home = dir.path() / "home"});
  } catch (const std::exception& e) {
    return state.SkipWithError(e.what());
  }
  const auto pid = daemon->pid();
  for (auto _ : state) {
    std::vector<std::string> ids;
    try {
      // Long enough to outlast the start-up and the window; aborted after it.
      ids = start_runs(*daemon, runs, static_cast<long>(rate_hz) * (seconds + 120));
      std::this_thread::sleep_for(1s);
      const double events_before = durable_events(*daemon);
      const double cpu_before = pid ? cpu_us(*pid) : 0;
      const auto t0 = Clock::now();
      std::vector<double> latencies;
      auto connection = daemon->connect();
      std::string body;
      for (std::size_t i = 0; Clock::now() - t0 < std::chrono::seconds(seconds); ++i) {
        const auto sent = Clock::now();
        const int status = connection.get("/api/runs/" + ids[i % ids.size()], body);
        latencies.push_back(ms(Clock::now() - sent));
        if (status != 200) throw std::runtime_error("GET /api/runs/<id>: HTTP " + std::to_string(status) + " " + body);
        std::this_thread::sleep_until(sent + 5ms);
      }
      const double window = std::chrono::duration<double>(Clock::now() - t0).count();
      const double events = durable_events(*daemon) - events_before;
      state.SetIterationTime(window);
      if (pid) {
        state.counters["cpu_cores"] = (cpu_us(*pid) - cpu_before) / 1e6 / window;
        state.counters["rss_mb"] = static_cast<double>(status_kb(*pid, "VmHWM")) / 1024.0;
      }
      state.counters["api_p50_ms"] = percentile(latencies, 0.5);
      state.counters["api_p99_ms"] = percentile(latencies, 0.99);
      state.counters["api_max_ms"] = percentile(latencies, 1.0);
      state.counters["api_requests"] = static_cast<double>(latencies.size());
      state.counters["events_per_s"] = events / window;
      state.counters["asked_per_s"] = runs * rate_hz;
      abort_all(*daemon, ids);
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
      try {
        if (!ids.empty()) abort_all(*daemon, ids);
      } catch (const std::exception&) {  // already failing: the daemon is stopped below
      }
    }
  }
  state.counters["runs"] = runs;
  if (auto* local = daemon->process()) local->stop(SIGTERM, 60s);
}
BENCHMARK(BM_Soak)->ArgName("runs")->Arg(100)->Arg(400)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace agentry::bench

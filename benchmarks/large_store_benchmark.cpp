// The real daemon on a large store: AGENTRY_LARGE_STORE_RUNS (default 100,000) runs with
// 3 tasks each, written into the SQLite file in-process (bench_support.hpp, as
// run_list_benchmark makes them) before the daemon first starts on it. Then:
//   BM_Restart    the daemon stopped (SIGTERM) and started again, 5 times: from the spawn
//                 to its first answer to GET /api/daemon (restart_ms: p50; restart_max_ms);
//                 first_start_ms is the first start after the seeding, not counted (it
//                 checkpoints the seed's WAL); exec_floor_ms is `agentry --version` run to
//                 its end, what any start of the binary costs
//   BM_ListPage   GET /api/runs?limit=100 (the newest page) over one keep-alive connection:
//                 p50_ms, p99_ms
//   BM_RunDetail  GET /api/runs/<id> of runs spread over the whole store, likewise
//   BM_IdleRss    the daemon's resident set (VmRSS) 1 s after it started (rss_started_mb)
//                 and 1 s after the requests above (rss_idle_mb)
// It needs a local daemon (it writes the store's file, restarts the daemon and reads its
// memory from /proc): with AGENTRY_BENCH_DAEMON set, every case is skipped.

#include "bench_daemon.hpp"
#include "bench_support.hpp"
#include "daemon_binary.hpp"
#include "keep_alive_connection.hpp"
#include "process_stats.hpp"
#include "support/daemon_process.hpp"
#include "support/subprocess.hpp"

#include <benchmark/benchmark.h>

#include <boost/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <thread>

#include <fcntl.h>

namespace agentry::bench {
namespace {
namespace json = boost::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

int store_runs() {
  const char* s = std::getenv("AGENTRY_LARGE_STORE_RUNS");
  const int n = s ? std::atoi(s) : 100'000;
  return n >= 1000 ? n : 100'000;
}

/// The seeded store and the daemon serving it.
struct Fixture {
  int runs = store_runs();
  BenchEnvironment env{"large-store", /*synchronous_full=*/false};
  std::unique_ptr<test::DaemonProcess> daemon;
  std::optional<double> first_start_ms;
  double rss_started_mb = 0;

  Fixture() {
    const auto t0 = Clock::now();
    env.seed_runs(runs, "/work/project-", 20);
    env.close_store();
    std::fprintf(stderr, "seeded %d runs in %.1f s\n", runs, ms(Clock::now() - t0) / 1000);
    test::DaemonOptions options;
    options.home = env.home_dir();
    options.config_dir = env.config_dir();
    options.binary = daemon_binary();
    options.ready_poll = 200us;
    daemon = std::make_unique<test::DaemonProcess>(options);
  }

  /// Starts the daemon and waits for its first answer; the time from the spawn.
  double start() {
    const auto t0 = Clock::now();
    daemon->start();
    auto client = daemon->client();
    while (client.get("/api/daemon").status != 200) std::this_thread::sleep_for(200us);
    return ms(Clock::now() - t0);
  }

  void ensure_running() {
    if (daemon->running()) return;
    const double took = start();
    if (!first_start_ms) first_start_ms = took;
    std::this_thread::sleep_for(1s);
    rss_started_mb = static_cast<double>(status_kb(daemon->pid(), "VmRSS")) / 1024.0;
  }
};

// Made in main(): the daemon dies with the thread that started it (PR_SET_PDEATHSIG).
std::unique_ptr<Fixture> the_fixture;

Fixture* fixture(benchmark::State& state) {
  if (!the_fixture) {
    state.SkipWithError("needs a local daemon (it writes the store's file, restarts the daemon, reads /proc): "
                        "unset AGENTRY_BENCH_DAEMON");
    return nullptr;
  }
  try {
    the_fixture->ensure_running();
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return nullptr;
  }
  return the_fixture.get();
}

void BM_Restart(benchmark::State& state) {
  auto* f = fixture(state);
  if (!f) return;
  std::vector<double> restarts, floors;
  const test::UniqueFd null(::open("/dev/null", O_WRONLY | O_CLOEXEC));
  for (auto _ : state) {
    for (int i = 0; i < 5; ++i) {
      f->daemon->stop();
      restarts.push_back(f->start());
    }
    for (int i = 0; i < 5; ++i) {
      const auto t0 = Clock::now();
      test::SpawnOptions version;
      version.argv = {daemon_binary().string(), "--version"};
      version.env = test::environment_with({});
      version.stdout_fd = version.stderr_fd = null.get();
      const pid_t pid = test::spawn_process(version);
      if (test::wait_for_exit(pid, 10s) != 0) return state.SkipWithError("agentry --version failed");
      floors.push_back(ms(Clock::now() - t0));
    }
    state.SetIterationTime(percentile(restarts, 0.5) / 1000);
  }
  state.counters["runs"] = f->runs;
  state.counters["restart_ms"] = percentile(restarts, 0.5);
  state.counters["restart_max_ms"] = percentile(restarts, 1.0);
  state.counters["first_start_ms"] = f->first_start_ms.value_or(0);
  state.counters["exec_floor_ms"] = percentile(floors, 0.5);
}
BENCHMARK(BM_Restart)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

/// Times GET `target(i)` for each iteration i over one keep-alive connection.
template <typename Target>
void time_gets(benchmark::State& state, Fixture& f, Target target, const char* what) {
  KeepAliveConnection connection("127.0.0.1", f.daemon->port());
  std::string body;
  for (int i = 0; i < 20; ++i) connection.get(target(i), body);  // warm the readers' caches
  std::vector<double> times;
  std::int64_t i = 0;
  const double cpu_before = cpu_us(f.daemon->pid());
  for (auto _ : state) {
    const auto t0 = Clock::now();
    const int status = connection.get(target(i++), body);
    times.push_back(ms(Clock::now() - t0));
    if (status != 200) return state.SkipWithError((std::string(what) + ": HTTP " + std::to_string(status) + " " + body).c_str());
  }
  // The daemon's CPU per request: steadier than the times when the machine is busy.
  state.counters["daemon_cpu_us"] = (cpu_us(f.daemon->pid()) - cpu_before) / static_cast<double>(times.size());
  state.counters["runs"] = f.runs;
  state.counters["p50_ms"] = percentile(times, 0.5);
  state.counters["p99_ms"] = percentile(times, 0.99);
}

void BM_ListPage(benchmark::State& state) {
  auto* f = fixture(state);
  if (!f) return;
  std::string body;
  KeepAliveConnection("127.0.0.1", f->daemon->port()).get("/api/runs?limit=100", body);
  const auto page = json::parse(body);
  if (page.at("runs").as_array().size() != 100) return state.SkipWithError(("not a page of 100 runs: " + body.substr(0, 300)).c_str());
  time_gets(state, *f, [](std::int64_t) { return std::string("/api/runs?limit=100"); }, "GET /api/runs");
}
BENCHMARK(BM_ListPage)->Iterations(300)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_RunDetail(benchmark::State& state) {
  auto* f = fixture(state);
  if (!f) return;
  const int runs = f->runs;
  time_gets(
      state, *f,
      [runs](std::int64_t i) {
        char id[16];
        std::snprintf(id, sizeof id, "b%09d", static_cast<int>((i * 7919) % runs));  // bench_support's ids
        return std::string("/api/runs/") + id;
      },
      "GET /api/runs/<id>");
}
BENCHMARK(BM_RunDetail)->Iterations(1000)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_IdleRss(benchmark::State& state) {
  auto* f = fixture(state);
  if (!f) return;
  for (auto _ : state) std::this_thread::sleep_for(1s);
  state.counters["runs"] = f->runs;
  state.counters["rss_started_mb"] = f->rss_started_mb;
  state.counters["rss_idle_mb"] = static_cast<double>(status_kb(f->daemon->pid(), "VmRSS")) / 1024.0;
}
BENCHMARK(BM_IdleRss)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace agentry::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!agentry::bench::remote_daemon()) agentry::bench::the_fixture = std::make_unique<agentry::bench::Fixture>();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  agentry::bench::the_fixture.reset();
  return 0;
}

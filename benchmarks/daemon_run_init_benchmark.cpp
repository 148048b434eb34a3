// Load driver: run creation through the real daemon. N client threads, each with its own
// keep-alive HTTP connection over loopback, send POST /api/runs/init back to back; the
// daemon resolves the mock agent and an assignment with 3 tasks and a required var, and
// commits the run, its tasks and its audit record (synchronous=FULL) before it answers 201.
// items_per_second is runs created per second by all clients together; daemon_cpu_us is
// the CPU time (user + system, all threads) the daemon spent per run, which says more than
// the rate on a machine shared with other work. N is 1, 8 (the table's figure) and 32:
// each client waits for its answer before it sends again, so with few clients the rate
// is bound by how many creations can share one commit; 32 shows what more in flight gives.
// The daemon binary comes from $AGENTRY_BIN, else <this program>/../bin/agentry; with
// AGENTRY_BENCH_DAEMON=http://host:port the clients drive that daemon instead (no CPU figure).

#include "bench_daemon.hpp"
#include "process_stats.hpp"
#include "support/temp_dir.hpp"

#include <benchmark/benchmark.h>

#include <boost/json.hpp>

#include <memory>
#include <string>

namespace agentry::bench {
namespace {
namespace json = boost::json;


/// One daemon for every benchmark of this program: the mock agent `worker` and the
/// assignment `feature` of benchmarks/config (bench_daemon.hpp), as in run_init_benchmark.
struct Fixture {
  test::TempDir dir;
  BenchDaemon daemon{BenchDaemonOptions{.home = dir.path() / "home"}};
};

// Started from main(): the daemon dies with the thread that started it (PR_SET_PDEATHSIG),
// and Google Benchmark runs multi-threaded benchmarks on threads it creates and joins.
std::unique_ptr<Fixture> the_fixture;

Fixture& fixture() { return *the_fixture; }

void BM_DaemonRunInit(benchmark::State& state) {
  auto& f = fixture();
  const std::string payload = json::serialize(json::object{
      {"agent", "worker"},
      {"assignment", "feature"},
      {"callerCwd", f.daemon.caller_cwd()},
      {"cliVars", {{"feature", "dark mode"}}}});
  KeepAliveConnection connection = f.daemon.connect();
  std::string body;
  const auto pid = f.daemon.pid();  // none for a remote daemon: no CPU figure
  const double cpu_before = state.thread_index() == 0 && pid ? cpu_us(*pid) : 0;
  for (auto _ : state) {
    int status = connection.post("/api/runs/init", payload, body);
    if (status != 201) return state.SkipWithError(("HTTP " + std::to_string(status) + ": " + body).c_str());
  }
  state.SetItemsProcessed(state.iterations());
  // Every thread runs as many iterations, so thread 0's span covers the others'; the
  // counter is divided by the iterations of all threads.
  if (state.thread_index() == 0 && pid)
    state.counters["daemon_cpu_us"] =
        benchmark::Counter(cpu_us(*pid) - cpu_before, benchmark::Counter::kAvgIterations);
}

BENCHMARK(BM_DaemonRunInit)->Threads(1)->Threads(8)->Threads(32)->UseRealTime()->Unit(benchmark::kMicrosecond)->MinTime(3.0);

}  // namespace
}  // namespace agentry::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  agentry::bench::the_fixture = std::make_unique<agentry::bench::Fixture>();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  agentry::bench::the_fixture.reset();
  return 0;
}

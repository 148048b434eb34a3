// Run creation throughput: Engine::init resolves definitions, renders the brief and
// commits the run, its tasks and its audit record with synchronous=FULL. With several
// threads, group commit shares each fsync among the writers waiting at that moment.

#include "bench_support.hpp"

#include <benchmark/benchmark.h>

#include <memory>

namespace agentry::bench {
namespace {

std::unique_ptr<BenchEnvironment> environment;

void BM_InitRun(benchmark::State& state) {
  if (state.thread_index() == 0) environment = std::make_unique<BenchEnvironment>("init", true);
  // Google Benchmark starts the timed loop of all threads together, after set-up.
  for (auto _ : state) {
    auto run = environment->engine().init(environment->request("feature"), engine::Actor{"bench"});
    if (!run) state.SkipWithError(run.error().message.c_str());
  }
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) {
    auto stats = environment->db().write_stats();
    state.counters["jobs_per_commit"] =
        stats.transactions ? static_cast<double>(stats.jobs) / static_cast<double>(stats.transactions) : 0;
  }
}

BENCHMARK(BM_InitRun)->Threads(1)->Threads(8)->UseRealTime()->Unit(benchmark::kMicrosecond)->MinTime(2.0);

}  // namespace
}  // namespace agentry::bench

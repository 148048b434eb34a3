// GET /api/runs's work in-process: one page (100 summaries with task tallies and
// latest sessions) from a database of 2,000 or 100,000 runs. Keyset paging on an index
// should make the first and a deep page cost the same at either size.

#include "bench_support.hpp"

#include <benchmark/benchmark.h>

#include <map>
#include <memory>

namespace agentry::bench {
namespace {

BenchEnvironment& seeded(int runs) {
  static std::map<int, std::unique_ptr<BenchEnvironment>> environments;
  auto& env = environments[runs];
  if (!env) {
    env = std::make_unique<BenchEnvironment>("list" + std::to_string(runs), false);
    env->seed_runs(runs, "/work/project-", 20);
  }
  return *env;
}

void list_page(benchmark::State& state, core::RunQuery query) {
  auto& env = seeded(static_cast<int>(state.range(0)));
  if (state.range(1) != 0) {
    // A deep page: walk to the middle once, then measure that page.
    core::RunQuery walk = query;
    for (int i = 0; i < state.range(0) / 2 / static_cast<int>(query.limit); ++i) {
      auto page = env.engine().list(walk);
      if (!page || !page->next_cursor) break;
      walk.after = page->next_cursor;
    }
    query.after = walk.after;
  }
  for (auto _ : state) {
    auto page = env.engine().list(query);
    if (!page || page->summaries.size() != query.limit) state.SkipWithError("short page");
    benchmark::DoNotOptimize(page);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(query.limit));
}

void BM_ListGlobalPage(benchmark::State& state) { list_page(state, core::RunQuery{}); }

void BM_ListCwdPage(benchmark::State& state) {
  core::RunQuery q;
  q.scope = core::RunQuery::Scope::cwd;
  q.value = "/work/project-7";
  list_page(state, q);
}

BENCHMARK(BM_ListGlobalPage)->ArgNames({"runs", "deep"})->Args({2000, 0})->Args({100000, 0})->Args({100000, 1})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ListCwdPage)->ArgNames({"runs", "deep"})->Args({2000, 0})->Args({100000, 0})->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace agentry::bench

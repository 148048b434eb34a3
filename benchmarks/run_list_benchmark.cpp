// GET /api/runs's work in-process: one page (100 summaries with task tallies and
// latest sessions) from a database of 2,000 or 100,000 runs. Keyset paging on an index
// should make the first and a deep page cost the same at either size; `older_rows:1`
// lists rows written before rows kept their frozen inputs' summary, read from the whole
// inputs. And one run's JSON alone, as a page and GET /api/runs/<id> show it: what the
// store's reads leave out.

#include "bench_support.hpp"
#include "core/task_tally.hpp"
#include "events/projections.hpp"

#include <benchmark/benchmark.h>
#include <boost/json/monotonic_resource.hpp>
#include <boost/json/serialize.hpp>

#include <map>
#include <memory>
#include <utility>

namespace agentry::bench {
namespace {

BenchEnvironment& seeded(int runs, bool older_rows = false) {
  static std::map<std::pair<int, bool>, std::unique_ptr<BenchEnvironment>> environments;
  auto& env = environments[{runs, older_rows}];
  if (!env) {
    env = std::make_unique<BenchEnvironment>("list" + std::to_string(runs) + (older_rows ? "-older" : ""), false);
    env->seed_runs(runs, "/work/project-", 20);
    if (older_rows) env->forget_frozen_summaries();
  }
  return *env;
}

void list_page(benchmark::State& state, core::RunQuery query) {
  auto& env = seeded(static_cast<int>(state.range(0)), state.range(2) != 0);
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

/// One seeded run (3 tasks, realistic frozen inputs) as the store reads it whole.
const engine::RunView& one_run() {
  static const engine::RunView view = [] {
    auto found = seeded(2000).engine().view("b000000007");  // bench_support's ids
    if (!found) std::abort();
    return *found;
  }();
  return view;
}

/// A run summary (a list page's row) built and serialized, on one resource as a page does.
void BM_SummaryJson(benchmark::State& state) {
  const auto& view = one_run();
  const auto tally = core::tally(view.tasks);
  std::size_t bytes = 0;
  for (auto _ : state) {
    auto storage = boost::json::make_shared_resource<boost::json::monotonic_resource>(3072);
    auto text = boost::json::serialize(events::run_summary(view.run, tally, std::nullopt, storage));
    bytes = text.size();
    benchmark::DoNotOptimize(text);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}

/// A run detail (GET /api/runs/<id>, and the answer to a run's creation) built and serialized.
void BM_DetailJson(benchmark::State& state) {
  const auto& view = one_run();
  std::size_t bytes = 0;
  for (auto _ : state) {
    auto storage = boost::json::make_shared_resource<boost::json::monotonic_resource>(8192);
    auto text = boost::json::serialize(events::run_detail({view.run, view.tasks, view.sessions, view.attempts}, storage));
    bytes = text.size();
    benchmark::DoNotOptimize(text);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}

BENCHMARK(BM_SummaryJson)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DetailJson)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ListGlobalPage)
    ->ArgNames({"runs", "deep", "older_rows"})
    ->Args({2000, 0, 0})
    ->Args({100000, 0, 0})
    ->Args({100000, 1, 0})
    ->Args({100000, 0, 1})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ListCwdPage)
    ->ArgNames({"runs", "deep", "older_rows"})
    ->Args({2000, 0, 0})
    ->Args({100000, 0, 0})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace agentry::bench

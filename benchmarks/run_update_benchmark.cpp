// One update of a run's row (what a status change, a usage report or an approval
// request writes), in-process, on runs whose timelines hold 0 to 200,000 events. The
// run's timeline must not make its row dearer to update: the figure should stay flat
// across `events`. Without fsync (synchronous=NORMAL), so the CPU is what is measured.

#include "bench_support.hpp"

#include "core/clock.hpp"
#include "store/event_repository.hpp"
#include "store/run_repository.hpp"
#include "store/transaction.hpp"

#include <benchmark/benchmark.h>

#include <map>
#include <memory>

namespace agentry::bench {
namespace {

struct LongRun {
  std::unique_ptr<BenchEnvironment> env;
  core::Run run;
};

/// A run whose timeline holds `events` notices of about 150 bytes, written in commits
/// of 512 as a streaming run writes them.
LongRun& long_run(int events) {
  static std::map<int, LongRun> runs;
  auto& r = runs[events];
  if (r.env) return r;
  r.env = std::make_unique<BenchEnvironment>("update" + std::to_string(events), false);
  auto created = r.env->engine().init(r.env->request("seed"), engine::Actor{"bench"});
  if (!created) std::abort();
  r.run = *created;
  const std::string payload = R"({"message":")" + std::string(130, 'x') + R"("})";
  for (int written = 0; written < events;) {
    const int n = std::min(512, events - written);
    auto ok = r.env->db().write<bool>([&](store::Transaction& c) -> core::Result<bool> {
      std::vector<core::TimelineEvent> batch(static_cast<std::size_t>(n));
      for (auto& e : batch) {
        e.kind = "notice";
        e.attempt_number = 1;
        e.at = core::now_time_text();
        e.payload_json = payload;
      }
      c.timeline().append_batch(r.run.id, batch);
      return true;
    });
    if (!ok) std::abort();
    written += n;
  }
  return r;
}

void BM_RunUpdate(benchmark::State& state) {
  auto& r = long_run(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    r.run.revision += 1;
    auto updated = r.env->db().write<bool>([&](store::Transaction& c) -> core::Result<bool> {
      return c.runs().update(r.run);
    });
    if (!updated || !*updated) state.SkipWithError("the run was not updated");
  }
}

BENCHMARK(BM_RunUpdate)->ArgName("events")->Arg(0)->Arg(10000)->Arg(200000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace agentry::bench

// Schedules: (1) 10,000 armed schedules on the real timer (one pool timer for the
// earliest, core/executor's timer queue): how late each fires after its due time;
// the case fails when any fires 50 ms late or more. (2) Daemon startup with 100,000
// runs of which 10,000 have a future schedule: what Engine::start_schedules() (read the
// due times, arm them) adds; the target is under 100 ms.

#include "bench_support.hpp"

#include "core/clock.hpp"
#include "engine/schedules/scheduler.hpp"
#include "store/schedule_repository.hpp"
#include "store/transaction.hpp"
#include "store/run_repository.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <vector>

namespace agentry::bench {
namespace {

void BM_ScheduleFireLateness(benchmark::State& state) {
  const int count = static_cast<int>(state.range(0));
  core::ThreadPool pool(4);
  for (auto _ : state) {
    std::mutex mutex;
    std::condition_variable done;
    int fired = 0;
    std::int64_t worst = 0;
    std::int64_t total = 0;
    engine::Scheduler scheduler(engine::pool_timer_source(pool), [&](const std::string&, std::int64_t due) {
      const std::int64_t late = core::now_ms() - due;
      std::lock_guard lock(mutex);
      worst = std::max(worst, late);
      total += late;
      if (++fired == count) done.notify_all();
    });
    scheduler.start();
    // Due times spread over one second, starting 200 ms from now, armed one by one.
    const std::int64_t base = core::now_ms() + 200;
    for (int i = 0; i < count; ++i)
      scheduler.arm("run-" + std::to_string(i), base + (static_cast<std::int64_t>(i) * 7919) % 1000);
    std::unique_lock lock(mutex);
    if (!done.wait_for(lock, std::chrono::seconds(10), [&] { return fired == count; })) {
      state.SkipWithError("not every schedule fired");
      break;
    }
    state.counters["max_late_ms"] = static_cast<double>(worst);
    state.counters["mean_late_ms"] = static_cast<double>(total) / count;
    if (worst >= 50) state.SkipWithError("a schedule fired 50 ms or more after its due time");
  }
}
BENCHMARK(BM_ScheduleFireLateness)->Arg(10000)->Iterations(3)->Unit(benchmark::kMillisecond)->UseRealTime();

BenchEnvironment& startup_environment() {
  static std::unique_ptr<BenchEnvironment> env;
  if (!env) {
    env = std::make_unique<BenchEnvironment>("schedule-startup", false);
    env->seed_runs(100000, "/work/project-", 20);
    // 10,000 of them get a one-time schedule an hour or more away.
    auto scheduled = env->db().write<int>([](store::Transaction& c) -> core::Result<int> {
      core::RunQuery first;
      first.limit = 10000;
      std::vector<std::string> ids;
      for (const auto& run : c.runs().list(first).runs) ids.push_back(run.id);
      const std::int64_t base = core::now_ms() + 3600 * 1000;
      int i = 0;
      for (const auto& id : ids) {
        core::Schedule schedule;
        schedule.run_id = id;
        schedule.spec.kind = core::ScheduleKind::once;
        schedule.spec.at_ms = base + i * 1000;
        schedule.next_ms = schedule.spec.at_ms;
        schedule.updated_at = core::now_iso8601();
        c.schedules().put(schedule);
        ++i;
      }
      return i;
    });
    if (!scheduled || *scheduled != 10000) std::abort();
  }
  return *env;
}

void BM_ArmAtStartup(benchmark::State& state) {
  auto& env = startup_environment();
  for (auto _ : state) {
    auto armed = env.engine().schedules().start();
    if (!armed || *armed != 10000) state.SkipWithError("not every schedule was armed");
    state.PauseTiming();
    env.engine().schedules().stop();
    state.ResumeTiming();
  }
  state.counters["armed"] = 10000;
}
BENCHMARK(BM_ArmAtStartup)->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace
}  // namespace agentry::bench

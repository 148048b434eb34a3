#include "engine/leases/lease_keeper.hpp"

#include "core/log.hpp"
#include "engine/leases/run_leases.hpp"
#include "engine/live/live_runs.hpp"
#include "store/lease_repository.hpp"
#include "store/store.hpp"

#include <set>
#include <string>
#include <vector>

namespace agentry::engine {

LeaseKeeper::LeaseKeeper(store::Store& db, core::ThreadPool& pool, LiveRuns& live)
    : db_(db), pool_(pool), live_(live) {}

LeaseKeeper::~LeaseKeeper() { stop(); }

void LeaseKeeper::start() {
  std::lock_guard lock(mutex_);
  if (task_) return;
  task_ = std::make_unique<core::RepeatingTask>(pool_, lease_times().renew_every, [this] { renew(); });
}

void LeaseKeeper::stop() {
  std::unique_ptr<core::RepeatingTask> task;
  {
    std::lock_guard lock(mutex_);
    task = std::move(task_);
  }
  if (task) task->stop();
}

int LeaseKeeper::renew() {
  // Listed before the write: each was registered after its lease was taken, so the
  // renewal below sees every one of their leases.
  const auto runs = live_.all();
  if (runs.empty()) {
    last_renewed_ = std::chrono::steady_clock::now();
    return 0;
  }
  const std::string& owner = live_.controller_id();
  const auto began = std::chrono::steady_clock::now();
  const auto validity = lease_times().validity;
  std::vector<std::string> ids;
  for (const auto& run : runs) ids.push_back(run->run_id());
  std::set<std::string> lost;
  auto renewed = db_.write<bool>([&](store::Transaction& c) -> core::Result<bool> {
    lost.clear();
    std::set<std::string> held;
    for (const auto& lease : c.leases().renew(owner, ids, validity.count())) held.insert(lease.run_id);
    // Not renewed: ended here (let go at our epoch) or taken by another controller.
    for (const auto& run : runs)
      if (!held.count(run->run_id()) && !c.leases().hold(run->run_id(), owner, run->lease_epoch()))
        lost.insert(run->run_id());
    return true;
  });
  int fenced = 0;
  if (!renewed) {
    const auto silent = std::chrono::duration_cast<std::chrono::milliseconds>(began - last_renewed_);
    core::log_error("cannot renew the leases of this daemon's runs",
                    {{"error", renewed.error().message}, {"sinceLastRenewalMs", std::to_string(silent.count())}});
    if (silent < validity) return 0;
    for (const auto& run : runs) {
      if (run->fenced()) continue;
      run->fence("the store could not be reached for " + std::to_string(silent.count()) +
                 " ms: the run's lease has run out and another member may have taken it");
      ++fenced;
    }
    return fenced;
  }
  last_renewed_ = began;
  for (const auto& run : runs) {
    if (!lost.count(run->run_id()) || run->fenced()) continue;
    run->fence("another member took the run over");
    ++fenced;
  }
  return fenced;
}

}  // namespace agentry::engine

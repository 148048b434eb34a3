#pragma once
// Keeps the leases of the runs this process drives (engine/leases/run_leases.hpp): every
// renew_every it extends them in one write and asks, for the live runs it could not
// renew, whether their lease moved on. A run whose lease another controller now holds is
// fenced (LiveRun::fence: its agent stops, nothing more is written). If the store cannot
// be reached for longer than a lease lasts, every lease has run out by the database's
// clock and other members may have taken the runs: all of them are fenced.

#include "core/executor.hpp"
#include "core/repeating_task.hpp"

#include <chrono>
#include <memory>
#include <mutex>

namespace agentry::store {
class Store;
}

namespace agentry::engine {

class LiveRuns;

class LeaseKeeper {
 public:
  LeaseKeeper(store::Store& db, core::ThreadPool& pool, LiveRuns& live);
  ~LeaseKeeper();
  LeaseKeeper(const LeaseKeeper&) = delete;
  LeaseKeeper& operator=(const LeaseKeeper&) = delete;

  /// Renews from now on, every lease_times().renew_every. Idempotent.
  void start();
  /// Idempotent; after it returns no renewal runs.
  void stop();
  /// One renewal now; how many live runs it fenced.
  int renew();

 private:
  store::Store& db_;
  core::ThreadPool& pool_;
  LiveRuns& live_;
  std::mutex mutex_;
  std::unique_ptr<core::RepeatingTask> task_;
  std::chrono::steady_clock::time_point last_renewed_ = std::chrono::steady_clock::now();
};

}  // namespace agentry::engine

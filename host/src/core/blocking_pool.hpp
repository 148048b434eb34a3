#pragma once
// Where work that waits runs: lifecycle hooks (a child process, up to 120 s each),
// libgit2 (baselines, diffstats, worktrees) and anything else that sleeps in waitpid,
// poll or a file system walk. A fixed number of threads (AGENTRY_BLOCKING_THREADS, 16
// by default), mostly asleep; a job beyond them waits its turn, in post order.
//
// It is not the ThreadPool that runs strands and timers (core/executor.hpp), and that
// is the point: a run's strand hands its blocking steps here (Strand::run_blocking), so
// eight slow hooks cannot hold the threads every run's events, timeouts and schedules
// need (DESIGN.md §5: a strand only sequences a run's state changes).

#include "core/executor.hpp"

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace agentry::core {

class BlockingPool {
 public:
  static constexpr std::size_t default_threads = 16;

  explicit BlockingPool(std::size_t threads = default_threads);
  /// Runs every job already posted, then joins. Whatever posts here must be stopped
  /// (or have cancelled its jobs' waits) first, or this waits for them.
  ~BlockingPool();
  BlockingPool(const BlockingPool&) = delete;
  BlockingPool& operator=(const BlockingPool&) = delete;

  /// Runs `job` on one of the pool's threads. A job that throws is logged, not fatal.
  void post(Work job);
  std::size_t threads() const { return workers_.size(); }

 private:
  void work();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Work> jobs_;
  std::size_t busy_ = 0;
  bool saturated_ = false;  // warned that jobs wait for a thread; reset once one is idle
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace agentry::core

#pragma once
// Hears of every committed run change (the event bus) and hands the changed run ids,
// a batch at a time, to an evaluation on the thread pool. Bus listeners run on the thread
// that committed (a request worker, a run's strand) and must not block, and the
// evaluation reads the store and may start a run: so the listener only records the id,
// and one pool job at a time drains the set. Ids that change again while they wait are
// looked at once. A batch lets the evaluation screen every id it holds in one read:
// under a burst of creations most changed runs concern nobody, and one read
// transaction per batch instead of one per run is what keeps that cheap.
//
// A change that finds the watcher idle waits `gather` before the drain starts, so that
// a burst is drained in batches: without it every creation of a steady stream found
// the watcher idle, and paid a pool thread's wake-up and a read of its own.
//
// It listens on the audit channel: every mutation notifies it, while the summary and
// detail refreshes the evaluation sends to waiting runs do not, so it never hears of
// its own notifications.

#include "core/executor.hpp"
#include "events/event_bus.hpp"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace agentry::engine {

class RunChangeWatcher {
 public:
  /// Called with up to max_batch distinct ids, in id order.
  using Evaluate = std::function<void(const std::vector<std::string>& run_ids)>;
  static constexpr std::size_t max_batch = 256;
  /// How long a change that finds the watcher idle waits for others to join it.
  static constexpr std::chrono::milliseconds default_gather{2};

  RunChangeWatcher(events::EventBus& bus, core::ThreadPool& pool, Evaluate evaluate,
                   std::chrono::milliseconds gather = default_gather);
  /// stop()
  ~RunChangeWatcher();
  RunChangeWatcher(const RunChangeWatcher&) = delete;
  RunChangeWatcher& operator=(const RunChangeWatcher&) = delete;

  /// Looks at `run_id` soon (on the pool).
  void enqueue(const std::string& run_id);
  /// Stops listening, drops what waits, and waits for an evaluation in progress to end.
  /// Never call it from an evaluation.
  void stop();

 private:
  struct State {
    std::mutex mutex;
    std::condition_variable idle;
    std::set<std::string> pending;
    bool scheduled = false;  // a drain waits for its gather time, is posted, or runs
    bool running = false;    // a drain is evaluating, or about to
    bool stopped = false;
    core::TimerHandle timer;
    std::chrono::milliseconds gather{};
    Evaluate evaluate;
  };
  static void enqueue(const std::shared_ptr<State>& state, core::ThreadPool& pool, const std::string& run_id);
  static void drain(const std::shared_ptr<State>& state);

  core::ThreadPool& pool_;
  std::shared_ptr<State> state_;
  events::EventBus::Subscription subscription_;
};

}  // namespace agentry::engine

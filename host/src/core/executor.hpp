#pragma once
// A small thread pool with serial "strands" and delayed tasks, using only the standard
// library so the engine can serialize each run's work without including Asio.
//
// A Strand runs its tasks one at a time, in post order, on any pool thread: the same
// guarantee as an Asio strand. Tasks posted to a strand keep it alive until they ran.
// A strand's task never waits on a child, a hook or git: it hands that part to the
// BlockingPool (core/blocking_pool.hpp) with run_blocking() and the strand resumes when
// it is done, so the pool's few threads stay free for every other strand and timer.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace agentry::core {

using Work = std::function<void()>;

/// The delayed tasks of one pool, by due time. A task is destroyed outside the queue's
/// lock, both when it fires and when it is cancelled: a task may hold the last
/// reference to an object whose destructor cancels other timers.
class TimerQueue;
class BlockingPool;

/// Cancels a delayed task that has not started yet, and releases what the task holds
/// at once. Copyable; cancel() is idempotent and safe after the pool is gone.
class TimerHandle {
 public:
  TimerHandle() = default;
  TimerHandle(std::weak_ptr<TimerQueue> queue, std::chrono::steady_clock::time_point due, std::uint64_t id)
      : queue_(std::move(queue)), due_(due), id_(id) {}
  void cancel();

 private:
  std::weak_ptr<TimerQueue> queue_;
  std::chrono::steady_clock::time_point due_{};
  std::uint64_t id_ = 0;
};

class ThreadPool {
 public:
  explicit ThreadPool(std::size_t threads);
  /// Runs every task already posted (not delayed ones), then joins.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void post(Work task);
  /// Runs `task` (via `post`) after `delay` unless the handle cancels it first.
  TimerHandle post_after(std::chrono::milliseconds delay, Work task);

 private:
  void work();
  void time();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Work> tasks_;
  std::shared_ptr<TimerQueue> timers_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
  std::thread timer_thread_;
};

class Strand {
 public:
  explicit Strand(ThreadPool& pool);
  void post(Work task);
  TimerHandle post_after(std::chrono::milliseconds delay, Work task);
  /// From a task running on this strand: runs `blocking` on `pool`, then `then` on this
  /// strand, and nothing else of the strand in between. Tasks posted meanwhile (events,
  /// timers, interrupts) wait, in order, behind `then`: the strand's sequence is what
  /// it would be had `blocking` run inline, but no pool thread waits for it. At most
  /// once per task (`then` may call it again); `blocking` starts once the task has
  /// returned. Called from anywhere else, the whole step is posted to the strand first.
  /// `then` runs even if `blocking` throws.
  void run_blocking(BlockingPool& pool, Work blocking, Work then);
  /// As run_blocking, for work that completes by itself rather than on a thread (a
  /// store write whose commit is announced by a callback): once the task has returned,
  /// `start(resume)` runs, and the strand holds everything else until `resume()` is
  /// called (once, from any thread); then `then` runs on the strand. A thread never
  /// waits for the work.
  using AsyncStart = std::function<void(Work resume)>;
  void run_async(AsyncStart start, Work then);

 private:
  struct Step {
    BlockingPool* pool = nullptr;  // with `blocking`
    Work blocking;
    AsyncStart start;  // or this
    Work then;
  };
  struct State {
    ThreadPool& pool;
    std::mutex mutex;
    std::deque<Work> queue;
    bool running = false;  // a drain is scheduled or running, or a step is in flight
    // Set by run_blocking() during a task, taken by the drain that ran the task once it
    // returned: only the strand's current runner touches it.
    std::optional<Step> step;
    explicit State(ThreadPool& p) : pool(p) {}
  };
  static void drain(const std::shared_ptr<State>& state);
  /// After the task that asked for it returned: the step's blocking part goes to its
  /// pool, and the strand (still `running`) waits for it.
  static void hand_off(const std::shared_ptr<State>& state);
  /// The blocking part is done: `then` first, then whatever waited behind it.
  static void resume(const std::shared_ptr<State>& state, Work then);

  std::shared_ptr<State> state_;
};

}  // namespace agentry::core

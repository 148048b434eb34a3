#pragma once
// A small thread pool with serial "strands" and delayed tasks, using only the standard
// library so the engine can serialize each run's work without including Asio.
//
// A Strand runs its tasks one at a time, in post order, on any pool thread: the same
// guarantee as an Asio strand. Tasks posted to a strand keep it alive until they ran.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace agentry::core {

using Work = std::function<void()>;

/// Cancels a delayed task that has not started yet. Copyable; cancel() is idempotent.
class TimerHandle {
 public:
  TimerHandle() = default;
  explicit TimerHandle(std::shared_ptr<bool> cancelled, std::shared_ptr<std::mutex> mutex)
      : cancelled_(std::move(cancelled)), mutex_(std::move(mutex)) {}
  void cancel();

 private:
  std::shared_ptr<bool> cancelled_;
  std::shared_ptr<std::mutex> mutex_;
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
  std::multimap<std::chrono::steady_clock::time_point, std::pair<Work, std::shared_ptr<bool>>> timers_;
  std::shared_ptr<std::mutex> timer_mutex_ = std::make_shared<std::mutex>();
  std::condition_variable timer_wake_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
  std::thread timer_thread_;
};

class Strand {
 public:
  explicit Strand(ThreadPool& pool);
  void post(Work task);
  TimerHandle post_after(std::chrono::milliseconds delay, Work task);

 private:
  struct State {
    ThreadPool& pool;
    std::mutex mutex;
    std::deque<Work> queue;
    bool running = false;
    explicit State(ThreadPool& p) : pool(p) {}
  };
  static void drain(const std::shared_ptr<State>& state);

  std::shared_ptr<State> state_;
};

}  // namespace agentry::core

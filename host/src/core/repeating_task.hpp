#pragma once
// A job that runs on a ThreadPool every `interval`, one run at a time: the next run is
// scheduled (post_after) when the previous one has finished, so a slow run delays the
// next instead of piling up. stop() (or destruction) cancels the next run and waits for
// one in progress, so after it returns the job is never called again and whatever it
// uses may go away.

#include "core/executor.hpp"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>

namespace agentry::core {

class RepeatingTask {
 public:
  /// Schedules the first run `interval` from now. `pool` must outlive this object.
  RepeatingTask(ThreadPool& pool, std::chrono::milliseconds interval, std::function<void()> job);
  ~RepeatingTask();
  RepeatingTask(const RepeatingTask&) = delete;
  RepeatingTask& operator=(const RepeatingTask&) = delete;

  /// Idempotent. Must not be called from the job itself.
  void stop();

 private:
  struct State {
    ThreadPool& pool;
    std::chrono::milliseconds interval;
    std::function<void()> job;
    std::mutex mutex;
    std::condition_variable idle;
    bool stopped = false;
    bool running = false;
    TimerHandle next;
    State(ThreadPool& p, std::chrono::milliseconds i, std::function<void()> j)
        : pool(p), interval(i), job(std::move(j)) {}
  };
  static void schedule(const std::shared_ptr<State>& state);
  static void tick(const std::shared_ptr<State>& state);

  std::shared_ptr<State> state_;
};

}  // namespace agentry::core

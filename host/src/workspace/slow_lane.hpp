#pragma once
// Where long workspace work (diffs, searches, baselines) runs: a few threads of its
// own, so that a large diff never occupies the request workers' pool, with admission
// control (a full lane answers UNAVAILABLE at once, "try again") and a bounded wait.
// The work itself checks its Deadline and answers what it has, truncated; the wait
// here is the backstop that lets a caller go even if it does not.

#include "core/result.hpp"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace agentry::workspace {

class SlowLane {
 public:
  /// `threads` jobs run at once; `max_queued` more may wait; beyond that, UNAVAILABLE.
  explicit SlowLane(std::size_t threads = 2, std::size_t max_queued = 2);
  /// Runs the jobs already queued, then joins.
  ~SlowLane();
  SlowLane(const SlowLane&) = delete;
  SlowLane& operator=(const SlowLane&) = delete;

  /// Runs `job` on the lane and waits at most `wait` for its result.
  template <class T>
  core::Result<T> run(std::function<core::Result<T>()> job, std::chrono::milliseconds wait) {
    auto promise = std::make_shared<std::promise<core::Result<T>>>();
    auto future = promise->get_future();
    const bool admitted = admit([promise, job = std::move(job)]() mutable -> std::function<void()> {
      auto result = std::make_shared<std::optional<core::Result<T>>>();
      try {
        result->emplace(job());
      } catch (const std::exception& e) {
        result->emplace(core::fail(core::ErrorCode::internal, std::string("workspace job failed: ") + e.what()));
      }
      return [promise, result] { promise->set_value(std::move(**result)); };
    });
    if (!admitted)
      return core::fail(core::ErrorCode::unavailable,
                        "the daemon is busy with other diffs and searches; try again in a moment",
                        {{"reason", "workspace_busy"}});
    if (future.wait_for(wait) != std::future_status::ready)
      return core::fail(core::ErrorCode::unavailable, "the workspace operation did not finish in time; try again",
                        {{"reason", "deadline"}});
    return future.get();
  }

  /// False when the lane is full.
  bool post(std::function<void()> job);

 private:
  /// Like post(); what `job` returns runs once the job's place on the lane is free again,
  /// so a caller it wakes finds room for its next job at once.
  bool admit(std::function<std::function<void()>()> job);
  void work();

  std::size_t threads_;
  std::size_t max_queued_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<std::function<void()>()>> queue_;
  std::size_t running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace agentry::workspace

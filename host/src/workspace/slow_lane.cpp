#include "workspace/slow_lane.hpp"

namespace agentry::workspace {

SlowLane::SlowLane(std::size_t threads, std::size_t max_queued)
    : threads_(threads == 0 ? 1 : threads), max_queued_(max_queued) {
  for (std::size_t i = 0; i < threads_; ++i) workers_.emplace_back([this] { work(); });
}

SlowLane::~SlowLane() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

bool SlowLane::post(std::function<void()> job) {
  return admit([job = std::move(job)]() -> std::function<void()> {
    job();
    return nullptr;
  });
}

bool SlowLane::admit(std::function<std::function<void()>()> job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || running_ + queue_.size() >= threads_ + max_queued_) return false;
    queue_.push_back(std::move(job));
  }
  wake_.notify_one();
  return true;
}

void SlowLane::work() {
  for (;;) {
    std::function<std::function<void()>()> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing left
      job = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    std::function<void()> publish = job();
    job = nullptr;  // destroyed outside the lock
    {
      std::lock_guard lock(mutex_);
      --running_;
    }
    // After the slot is free: the caller this wakes may post its next job at once (a
    // lane with no queue answered that caller's next request UNAVAILABLE otherwise).
    if (publish) publish();
  }
}

}  // namespace agentry::workspace

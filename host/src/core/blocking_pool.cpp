#include "core/blocking_pool.hpp"

#include "core/log.hpp"

#include <algorithm>
#include <exception>
#include <string>

namespace agentry::core {

BlockingPool::BlockingPool(std::size_t threads) {
  for (std::size_t i = 0; i < std::max<std::size_t>(threads, 1); ++i) workers_.emplace_back([this] { work(); });
}

BlockingPool::~BlockingPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void BlockingPool::post(Work job) {
  bool warn = false;
  std::size_t waiting = 0;
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(job));
    // Every thread busy and work queued: say so once per episode, since it means hooks
    // (or git) of some runs wait for others' to finish.
    if (busy_ + jobs_.size() > workers_.size() && !saturated_) {
      saturated_ = warn = true;
      waiting = jobs_.size();
    }
  }
  wake_.notify_one();
  if (warn)
    log_warn("every blocking thread is busy; hooks and git work wait their turn (AGENTRY_BLOCKING_THREADS)",
             {{"threads", std::to_string(workers_.size())}, {"waiting", std::to_string(waiting)}});
}

void BlockingPool::work() {
  for (;;) {
    Work job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stopping and drained
      job = std::move(jobs_.front());
      jobs_.pop_front();
      ++busy_;
    }
    try {
      job();
    } catch (const std::exception& e) {
      log_error("blocking job failed", {{"error", e.what()}});
    } catch (...) {
      log_error("blocking job failed", {{"error", "unknown exception"}});
    }
    job = nullptr;  // what it captured goes now, not when the next job replaces it
    std::lock_guard lock(mutex_);
    --busy_;
    if (jobs_.empty() && busy_ < workers_.size()) saturated_ = false;
  }
}

}  // namespace agentry::core

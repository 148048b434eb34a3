#include "thread_pool.hpp"

#include <algorithm>

#include "agentry/plugin_common/child_process.hpp"

namespace agentry::plugin_common::runtime::detail {

namespace {
thread_local HandlerSlot* this_thread_slot = nullptr;
}  // namespace

HandlerMark::HandlerMark() noexcept : slot_(this_thread_slot) {
  if (slot_ == nullptr) return;
  // Only this thread writes its slot: plain increments, published for the watchdog.
  slot_->entered.store(slot_->entered.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  slot_->depth.store(slot_->depth.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

HandlerMark::~HandlerMark() {
  if (slot_ != nullptr)
    slot_->depth.store(slot_->depth.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
}

ThreadPool::ThreadPool() : guard_(boost::asio::make_work_guard(io_)) {
  base_ = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 2, 8);
  try {
    {
      std::lock_guard lock(mutex_);
      for (std::size_t i = 0; i < base_; ++i) start_worker(false);
    }
    watchdog_ = std::thread([this] { watch(); });
  } catch (...) {
    stop_and_join();
    throw;
  }
}

ThreadPool::~ThreadPool() { stop_and_join(); }

void ThreadPool::start_worker(bool extra) {
  Worker& worker = workers_.emplace_back();
  try {
    worker.thread = std::thread([this, &worker, extra] { work(worker, extra); });
  } catch (...) {
    workers_.pop_back();
    throw;
  }
  ++live_;
}

void ThreadPool::work(Worker& worker, bool extra) {
  this_thread_slot = &worker.slot;
  // A write to a pipe whose reader died fails with EPIPE here instead of killing the daemon.
  block_sigpipe_on_this_thread();
  if (!extra) {
    io_.run();
  } else {
    while (!io_.stopped()) {
      if (io_.run_one_for(kIdleExit) > 0) continue;
      std::lock_guard lock(mutex_);
      if (live_ > base_) {
        --live_;
        break;
      }
    }
  }
  std::lock_guard lock(mutex_);
  worker.exited = true;
}

void ThreadPool::watch() {
  std::unique_lock lock(mutex_);
  while (!stopping_changed_.wait_for(lock, kTick, [this] { return stopping_; })) {
    for (auto it = workers_.begin(); it != workers_.end();) {
      if (!it->exited) {
        ++it;
        continue;
      }
      it->thread.join();  // it only has to return from work(): no lock left to take
      it = workers_.erase(it);
    }
    if (live_ < kMaxThreads && all_stuck()) {
      try {
        start_worker(true);
      } catch (...) {  // no thread to be had now: the next tick tries again
      }
    }
  }
}

bool ThreadPool::all_stuck() {
  bool stuck = true;
  for (Worker& worker : workers_) {
    if (worker.exited) continue;
    const uint64_t entered = worker.slot.entered.load(std::memory_order_relaxed);
    const bool inside = worker.slot.depth.load(std::memory_order_relaxed) > 0;
    // Inside at both looks with no handler begun between them: one handler took the tick.
    if (!(inside && worker.seen_inside && entered == worker.seen_entered)) stuck = false;
    worker.seen_entered = entered;
    worker.seen_inside = inside;
  }
  return stuck;
}

void ThreadPool::stop_and_join() noexcept {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stopping_changed_.notify_all();
  if (watchdog_.joinable()) watchdog_.join();
  // Every instance's gate is shut by now: what is still queued would only be dropped.
  io_.stop();
  // Never from a handler: the host destroys instances from its control context.
  for (Worker& worker : workers_)
    if (worker.thread.joinable()) worker.thread.join();
}

}  // namespace agentry::plugin_common::runtime::detail

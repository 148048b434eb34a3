#include "core/executor.hpp"

namespace agentry::core {

void TimerHandle::cancel() {
  if (!cancelled_) return;
  std::lock_guard lock(*mutex_);
  *cancelled_ = true;
}

ThreadPool::ThreadPool(std::size_t threads) {
  for (std::size_t i = 0; i < std::max<std::size_t>(threads, 1); ++i) workers_.emplace_back([this] { work(); });
  timer_thread_ = std::thread([this] { time(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  {
    std::lock_guard lock(*timer_mutex_);
  }
  wake_.notify_all();
  timer_wake_.notify_all();
  timer_thread_.join();
  for (auto& w : workers_) w.join();
}

void ThreadPool::post(Work task) {
  {
    std::lock_guard lock(mutex_);
    tasks_.push_back(std::move(task));
  }
  wake_.notify_one();
}

TimerHandle ThreadPool::post_after(std::chrono::milliseconds delay, Work task) {
  auto cancelled = std::make_shared<bool>(false);
  {
    std::lock_guard lock(*timer_mutex_);
    timers_.emplace(std::chrono::steady_clock::now() + delay, std::make_pair(std::move(task), cancelled));
  }
  timer_wake_.notify_one();
  return TimerHandle(cancelled, timer_mutex_);
}

void ThreadPool::work() {
  for (;;) {
    Work task;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping and drained
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

void ThreadPool::time() {
  std::unique_lock lock(*timer_mutex_);
  for (;;) {
    {
      std::lock_guard stop_lock(mutex_);
      if (stopping_) return;
    }
    if (timers_.empty()) {
      timer_wake_.wait_for(lock, std::chrono::milliseconds(200));
      continue;
    }
    auto due = timers_.begin()->first;
    if (std::chrono::steady_clock::now() < due) {
      timer_wake_.wait_until(lock, std::min(due, std::chrono::steady_clock::now() + std::chrono::milliseconds(200)));
      continue;
    }
    auto node = timers_.extract(timers_.begin());
    if (*node.mapped().second) continue;  // cancelled
    post(std::move(node.mapped().first));
  }
}

Strand::Strand(ThreadPool& pool) : state_(std::make_shared<State>(pool)) {}

void Strand::post(Work task) {
  bool start = false;
  {
    std::lock_guard lock(state_->mutex);
    state_->queue.push_back(std::move(task));
    start = !state_->running;
    state_->running = true;
  }
  if (start) state_->pool.post([state = state_] { drain(state); });
}

TimerHandle Strand::post_after(std::chrono::milliseconds delay, Work task) {
  return state_->pool.post_after(delay, [strand = *this, task = std::move(task)]() mutable { strand.post(std::move(task)); });
}

void Strand::drain(const std::shared_ptr<State>& state) {
  // Run a bounded number of tasks, then yield the thread so one busy strand cannot
  // starve the others; the rest continue in a fresh pool task.
  for (int i = 0; i < 64; ++i) {
    Work task;
    {
      std::lock_guard lock(state->mutex);
      if (state->queue.empty()) {
        state->running = false;
        return;
      }
      task = std::move(state->queue.front());
      state->queue.pop_front();
    }
    task();
  }
  state->pool.post([state] { drain(state); });
}

}  // namespace agentry::core

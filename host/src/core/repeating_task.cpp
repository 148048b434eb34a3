#include "core/repeating_task.hpp"

namespace agentry::core {

RepeatingTask::RepeatingTask(ThreadPool& pool, std::chrono::milliseconds interval, std::function<void()> job)
    : state_(std::make_shared<State>(pool, interval, std::move(job))) {
  std::lock_guard lock(state_->mutex);
  schedule(state_);
}

RepeatingTask::~RepeatingTask() { stop(); }

void RepeatingTask::stop() {
  TimerHandle next;
  {
    std::unique_lock lock(state_->mutex);
    state_->stopped = true;
    next = std::move(state_->next);
    state_->idle.wait(lock, [&] { return !state_->running; });
  }
  next.cancel();  // outside our lock: the pool's timer takes its own
}

// Called with state->mutex held.
void RepeatingTask::schedule(const std::shared_ptr<State>& state) {
  state->next = state->pool.post_after(state->interval, [state] { tick(state); });
}

void RepeatingTask::tick(const std::shared_ptr<State>& state) {
  {
    std::lock_guard lock(state->mutex);
    if (state->stopped) return;
    state->running = true;
  }
  try {
    state->job();
  } catch (...) {
    // A job reports its own failures; one that throws still runs again next time.
  }
  std::lock_guard lock(state->mutex);
  state->running = false;
  if (!state->stopped) schedule(state);
  state->idle.notify_all();
}

}  // namespace agentry::core

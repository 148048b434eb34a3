#include "engine/delayed_calls.hpp"

namespace agentry::engine {

DelayedCalls::DelayedCalls(core::ThreadPool& pool, Call call) : pool_(pool), state_(std::make_shared<State>()) {
  state_->call = std::move(call);
}

DelayedCalls::~DelayedCalls() { stop(); }

void DelayedCalls::call_after(const std::string& key, std::chrono::milliseconds delay) {
  std::lock_guard lock(state_->mutex);
  if (state_->stopped || state_->waiting.count(key) != 0) return;
  std::weak_ptr<State> weak = state_;
  state_->waiting[key] = pool_.post_after(delay, [weak, key] {
    auto state = weak.lock();
    if (!state) return;
    {
      std::lock_guard starting(state->mutex);
      state->waiting.erase(key);
      if (state->stopped) return;
      ++state->running;
    }
    state->call(key);
    std::lock_guard done(state->mutex);
    if (--state->running == 0) state->idle.notify_all();
  });
}

void DelayedCalls::stop() {
  std::map<std::string, core::TimerHandle> waiting;
  {
    std::unique_lock lock(state_->mutex);
    state_->stopped = true;
    waiting.swap(state_->waiting);
    state_->idle.wait(lock, [&] { return state_->running == 0; });
  }
  // Outside the lock: a cancelled task is destroyed at once and may take the lock itself.
  for (auto& [key, handle] : waiting) handle.cancel();
}

}  // namespace agentry::engine

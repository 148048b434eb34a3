#include "engine/run_change_watcher.hpp"

#include "core/log.hpp"

namespace agentry::engine {

RunChangeWatcher::RunChangeWatcher(events::EventBus& bus, core::ThreadPool& pool, Evaluate evaluate,
                                   std::chrono::milliseconds gather)
    : pool_(pool), state_(std::make_shared<State>()) {
  state_->evaluate = std::move(evaluate);
  state_->gather = gather;
  // The bus may call a listener it took before the unsubscription: the listener holds
  // the shared state and the pool (which outlives the engine), never this object.
  subscription_ = bus.subscribe(events::Channel::audit, "",
                                [state = state_, &pool](const events::Notification& n) { enqueue(state, pool, n.run_id); });
}

RunChangeWatcher::~RunChangeWatcher() { stop(); }

void RunChangeWatcher::enqueue(const std::string& run_id) { enqueue(state_, pool_, run_id); }

void RunChangeWatcher::enqueue(const std::shared_ptr<State>& state, core::ThreadPool& pool, const std::string& run_id) {
  std::lock_guard lock(state->mutex);
  if (state->stopped) return;
  state->pending.insert(run_id);
  if (state->scheduled) return;
  state->scheduled = true;
  // Under the lock, so that stop() finds the handle of the timer it must cancel. Adding
  // a timer never calls back into this state.
  if (state->gather.count() > 0)
    state->timer = pool.post_after(state->gather, [state] { drain(state); });
  else
    pool.post([state] { drain(state); });
}

void RunChangeWatcher::drain(const std::shared_ptr<State>& state) {
  {
    std::lock_guard lock(state->mutex);
    if (state->stopped) return;  // stop() cleared `scheduled`: it waits on nothing here
    state->running = true;
  }
  for (;;) {
    std::vector<std::string> ids;
    {
      std::lock_guard lock(state->mutex);
      if (state->stopped || state->pending.empty()) {
        state->scheduled = false;
        state->running = false;
        state->idle.notify_all();
        return;
      }
      while (!state->pending.empty() && ids.size() < max_batch)
        ids.push_back(state->pending.extract(state->pending.begin()).value());
    }
    try {
      state->evaluate(ids);
    } catch (const std::exception& e) {
      core::log_error("evaluating changed runs failed",
                      {{"runId", ids.front()}, {"runs", std::to_string(ids.size())}, {"error", e.what()}});
    }
  }
}

void RunChangeWatcher::stop() {
  subscription_ = events::EventBus::Subscription();
  core::TimerHandle timer;
  {
    std::unique_lock lock(state_->mutex);
    state_->stopped = true;
    state_->pending.clear();
    // A drain still waiting for its time, or queued on the pool, sees `stopped` and
    // returns without evaluating; only one that is evaluating is waited for. The pool's
    // timers may already be gone when the daemon stops, so nothing waits on them.
    state_->scheduled = false;
    timer = std::move(state_->timer);
    state_->idle.wait(lock, [&] { return !state_->running; });
  }
  timer.cancel();  // releases the state the waiting drain holds
}

}  // namespace agentry::engine

#include "engine/run_change_watcher.hpp"

#include "core/log.hpp"

namespace agentry::engine {

RunChangeWatcher::RunChangeWatcher(events::EventBus& bus, core::ThreadPool& pool, Evaluate evaluate)
    : pool_(pool), state_(std::make_shared<State>()) {
  state_->evaluate = std::move(evaluate);
  // The bus may call a listener it took before the unsubscription: the listener holds
  // the shared state and the pool (which outlives the engine), never this object.
  subscription_ = bus.subscribe(events::Channel::audit, "",
                                [state = state_, &pool](const events::Notification& n) { enqueue(state, pool, n.run_id); });
}

RunChangeWatcher::~RunChangeWatcher() { stop(); }

void RunChangeWatcher::enqueue(const std::string& run_id) { enqueue(state_, pool_, run_id); }

void RunChangeWatcher::enqueue(const std::shared_ptr<State>& state, core::ThreadPool& pool, const std::string& run_id) {
  {
    std::lock_guard lock(state->mutex);
    if (state->stopped) return;
    state->pending.insert(run_id);
    if (state->scheduled) return;
    state->scheduled = true;
  }
  pool.post([state] { drain(state); });
}

void RunChangeWatcher::drain(const std::shared_ptr<State>& state) {
  for (;;) {
    std::vector<std::string> ids;
    {
      std::lock_guard lock(state->mutex);
      if (state->stopped || state->pending.empty()) {
        state->scheduled = false;
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
  std::unique_lock lock(state_->mutex);
  state_->stopped = true;
  state_->pending.clear();
  // A drain job still queued on the pool sees `stopped` and clears `scheduled` at once.
  state_->idle.wait(lock, [&] { return !state_->scheduled; });
}

}  // namespace agentry::engine

#include "engine/schedules/scheduler.hpp"

#include "core/clock.hpp"

#include <algorithm>

namespace agentry::engine {
namespace {

class PoolTimerSource final : public TimerSource {
 public:
  explicit PoolTimerSource(core::ThreadPool& pool) : pool_(pool) {}
  std::int64_t now_ms() override { return core::now_ms(); }
  std::function<void()> wake_at(std::int64_t at_ms, core::Work work) override {
    const auto delay = std::max<std::int64_t>(0, at_ms - core::now_ms());
    auto handle = pool_.post_after(std::chrono::milliseconds(delay), std::move(work));
    return [handle]() mutable { handle.cancel(); };
  }
  void post(core::Work work) override { pool_.post(std::move(work)); }

 private:
  core::ThreadPool& pool_;
};

}  // namespace

std::shared_ptr<TimerSource> pool_timer_source(core::ThreadPool& pool) {
  return std::make_shared<PoolTimerSource>(pool);
}

struct Scheduler::State {
  TimerSource* timers;
  DueHandler on_due;
  mutable std::mutex mutex;
  bool started = false;
  std::map<std::string, std::int64_t> due_of;              // run id -> due
  std::set<std::pair<std::int64_t, std::string>> by_due;   // (due, run id)
  std::optional<std::int64_t> armed_for;                   // what the one timer is set for
  std::uint64_t generation = 0;                            // of the one timer
  std::function<void()> cancel_timer;
};

Scheduler::Scheduler(std::shared_ptr<TimerSource> timers, DueHandler on_due)
    : timers_(std::move(timers)), state_(std::make_shared<State>()) {
  state_->timers = timers_.get();
  state_->on_due = std::move(on_due);
}

Scheduler::~Scheduler() { stop(); }

void Scheduler::rearm_locked(const std::shared_ptr<State>& state, std::vector<std::function<void()>>& cancels) {
  std::optional<std::int64_t> earliest;
  if (!state->by_due.empty()) earliest = state->by_due.begin()->first;
  if (earliest == state->armed_for) return;
  if (state->cancel_timer) cancels.push_back(std::move(state->cancel_timer));
  state->cancel_timer = nullptr;
  state->armed_for = earliest;
  const std::uint64_t generation = ++state->generation;
  if (!earliest) return;
  std::weak_ptr<State> weak = state;
  state->cancel_timer = state->timers->wake_at(*earliest, [weak, generation] {
    if (auto s = weak.lock()) fire(s, generation);
  });
}

void Scheduler::fire(const std::shared_ptr<State>& state, std::uint64_t generation) {
  std::vector<std::pair<std::string, std::int64_t>> due;
  std::vector<std::function<void()>> cancels;
  {
    std::lock_guard lock(state->mutex);
    if (generation != state->generation || !state->started) return;
    state->cancel_timer = nullptr;
    state->armed_for.reset();
    const std::int64_t now = state->timers->now_ms();
    while (!state->by_due.empty() && state->by_due.begin()->first <= now) {
      auto [at, run_id] = *state->by_due.begin();
      state->by_due.erase(state->by_due.begin());
      state->due_of.erase(run_id);
      due.emplace_back(std::move(run_id), at);
    }
    rearm_locked(state, cancels);
  }
  for (auto& cancel : cancels) cancel();
  // Each due run is its own task: one slow start never delays the others.
  for (auto& [run_id, at] : due)
    state->timers->post([state, run_id = std::move(run_id), at = at] { state->on_due(run_id, at); });
}

void Scheduler::arm(const std::string& run_id, std::int64_t due_ms) { arm_all({{run_id, due_ms}}); }

void Scheduler::arm_all(const std::vector<std::pair<std::string, std::int64_t>>& entries) {
  std::vector<std::function<void()>> cancels;
  {
    std::lock_guard lock(state_->mutex);
    if (!state_->started) return;
    for (const auto& [run_id, due] : entries) {
      auto [it, inserted] = state_->due_of.try_emplace(run_id, due);
      if (!inserted) {
        state_->by_due.erase({it->second, run_id});
        it->second = due;
      }
      state_->by_due.emplace(due, run_id);
    }
    rearm_locked(state_, cancels);
  }
  for (auto& cancel : cancels) cancel();
}

void Scheduler::disarm(const std::string& run_id) {
  std::vector<std::function<void()>> cancels;
  {
    std::lock_guard lock(state_->mutex);
    auto it = state_->due_of.find(run_id);
    if (it == state_->due_of.end()) return;
    state_->by_due.erase({it->second, run_id});
    state_->due_of.erase(it);
    rearm_locked(state_, cancels);
  }
  for (auto& cancel : cancels) cancel();
}

void Scheduler::start() {
  std::lock_guard lock(state_->mutex);
  state_->started = true;
}

void Scheduler::stop() {
  std::function<void()> cancel;
  {
    std::lock_guard lock(state_->mutex);
    state_->started = false;
    state_->due_of.clear();
    state_->by_due.clear();
    state_->armed_for.reset();
    ++state_->generation;
    cancel = std::move(state_->cancel_timer);
    state_->cancel_timer = nullptr;
  }
  if (cancel) cancel();
}

std::size_t Scheduler::armed_count() const {
  std::lock_guard lock(state_->mutex);
  return state_->by_due.size();
}

std::optional<std::int64_t> Scheduler::earliest() const {
  std::lock_guard lock(state_->mutex);
  if (state_->by_due.empty()) return std::nullopt;
  return state_->by_due.begin()->first;
}

}  // namespace agentry::engine

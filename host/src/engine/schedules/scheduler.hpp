#pragma once
// The due times of every armed schedule, in one ordered set, with ONE timer armed for
// the earliest (never a timer or a poll per run). When it fires, every schedule due by
// then is handed to `on_due` as its own pool task, and the timer is re-armed for the
// next earliest. Arming, re-arming and disarming cost O(log n) under a mutex held only
// for the set operation; callbacks run outside it.
//
// Time comes from a TimerSource, so tests drive the scheduler with a fake clock.

#include "core/executor.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace agentry::engine {

/// Wall-clock time and one-shot wake-ups. The real one is pool_timer_source().
class TimerSource {
 public:
  virtual ~TimerSource() = default;
  virtual std::int64_t now_ms() = 0;
  /// Calls `work` (on any thread) at `at_ms` or soon after; the returned function
  /// cancels it if it has not started.
  virtual std::function<void()> wake_at(std::int64_t at_ms, core::Work work) = 0;
  /// Runs `work` soon on a worker thread (never inline).
  virtual void post(core::Work work) = 0;
};

/// Wall clock (core::now_ms) and the pool's delayed tasks.
std::shared_ptr<TimerSource> pool_timer_source(core::ThreadPool& pool);

class Scheduler {
 public:
  using DueHandler = std::function<void(const std::string& run_id, std::int64_t due_ms)>;
  Scheduler(std::shared_ptr<TimerSource> timers, DueHandler on_due);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  /// Arms (or re-arms) the run's schedule for `due_ms`. Ignored until start().
  void arm(const std::string& run_id, std::int64_t due_ms);
  /// Arms many at once: one timer update for all (startup).
  void arm_all(const std::vector<std::pair<std::string, std::int64_t>>& entries);
  void disarm(const std::string& run_id);
  /// From now on arm() counts. Idempotent.
  void start();
  /// Cancels the timer and forgets every entry; due handlers already posted still run.
  void stop();

  std::size_t armed_count() const;
  /// The earliest armed due time, if any.
  std::optional<std::int64_t> earliest() const;
  TimerSource& timers() { return *timers_; }

 private:
  struct State;
  static void fire(const std::shared_ptr<State>& state, std::uint64_t generation);
  /// With the lock held: re-arms the one timer if the earliest entry changed.
  static void rearm_locked(const std::shared_ptr<State>& state, std::vector<std::function<void()>>& cancels);

  std::shared_ptr<TimerSource> timers_;
  std::shared_ptr<State> state_;
};

}  // namespace agentry::engine

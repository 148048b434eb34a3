#pragma once
// What the engine keeps for schedules while it lives: the scheduler (one timer for the
// earliest due time), the runs whose due start is under way (the "pending start" set:
// a second occurrence meanwhile is skipped), and a gate that lets stop_schedules()
// wait for due handlers already running before the engine goes away.

#include "engine/schedules/scheduler.hpp"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>

namespace agentry::engine {

class ScheduleRuntime {
 public:
  ScheduleRuntime(std::shared_ptr<TimerSource> timers, Scheduler::DueHandler on_due)
      : scheduler(std::move(timers), std::move(on_due)) {}

  Scheduler scheduler;

  /// Held by a due handler while it runs; false once stopping.
  class Pass {
   public:
    explicit Pass(ScheduleRuntime& r) : r_(r) {
      std::lock_guard lock(r_.mutex_);
      ok_ = !r_.stopping_;
      if (ok_) ++r_.in_flight_;
    }
    ~Pass() {
      if (!ok_) return;
      std::lock_guard lock(r_.mutex_);
      if (--r_.in_flight_ == 0) r_.idle_.notify_all();
    }
    explicit operator bool() const { return ok_; }

   private:
    ScheduleRuntime& r_;
    bool ok_ = false;
  };

  /// Marks the run's due start as under way; false when one already is.
  bool begin_start(const std::string& run_id) {
    std::lock_guard lock(mutex_);
    return starting_.insert(run_id).second;
  }
  void end_start(const std::string& run_id) {
    std::lock_guard lock(mutex_);
    starting_.erase(run_id);
  }

  void start() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = false;
    }
    scheduler.start();
  }
  /// Disarms everything, then waits for handlers in flight.
  void stop() {
    scheduler.stop();
    std::unique_lock lock(mutex_);
    stopping_ = true;
    idle_.wait(lock, [&] { return in_flight_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable idle_;
  int in_flight_ = 0;
  bool stopping_ = false;
  std::set<std::string> starting_;
};

}  // namespace agentry::engine

#pragma once
// A TimerSource whose clock only moves when a test says so: advance_to() runs the
// wake-ups that came due and the work they posted, on the test's thread.

#include "engine/schedules/scheduler.hpp"

#include <deque>
#include <map>
#include <mutex>

namespace agentry::engine::testing {

class FakeTimers final : public TimerSource {
 public:
  explicit FakeTimers(std::int64_t now) : now_(now) {}

  std::int64_t now_ms() override {
    std::lock_guard lock(mutex_);
    return now_;
  }
  std::function<void()> wake_at(std::int64_t at_ms, core::Work work) override {
    std::lock_guard lock(mutex_);
    const std::uint64_t id = ++next_id_;
    wakeups_[id] = {at_ms, std::move(work)};
    ++armed_total_;
    return [this, id] {
      std::lock_guard guard(mutex_);
      wakeups_.erase(id);
    };
  }
  void post(core::Work work) override {
    std::lock_guard lock(mutex_);
    posted_.push_back(std::move(work));
  }

  /// Moves the clock to `t` and runs everything that came due, until nothing is left.
  void advance_to(std::int64_t t) {
    {
      std::lock_guard lock(mutex_);
      now_ = t;
    }
    for (;;) {
      core::Work next;
      {
        std::lock_guard lock(mutex_);
        if (!posted_.empty()) {
          next = std::move(posted_.front());
          posted_.pop_front();
        } else {
          for (auto it = wakeups_.begin(); it != wakeups_.end(); ++it) {
            if (it->second.first <= now_) {
              next = std::move(it->second.second);
              wakeups_.erase(it);
              break;
            }
          }
        }
      }
      if (!next) return;
      next();
    }
  }
  void advance_by(std::int64_t ms) { advance_to(now_ms() + ms); }

  /// Wake-ups set and not yet fired or cancelled.
  std::size_t pending_wakeups() {
    std::lock_guard lock(mutex_);
    return wakeups_.size();
  }
  std::size_t armed_total() {
    std::lock_guard lock(mutex_);
    return armed_total_;
  }

 private:
  std::mutex mutex_;
  std::int64_t now_;
  std::uint64_t next_id_ = 0;
  std::size_t armed_total_ = 0;
  std::map<std::uint64_t, std::pair<std::int64_t, core::Work>> wakeups_;
  std::deque<core::Work> posted_;
};

}  // namespace agentry::engine::testing

#pragma once
// What a write job asks to happen once its transaction has committed, kept by the
// engine's writer connection: Transaction::after_commit actions, in commit order, and the
// timeline events appended, told to the store's one TimelineListener. A job that rolls
// back takes its own away again (the write queue drops what it registered).

#include "core/run.hpp"
#include "store/store.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace agentry::store {

class CommitActions {
 public:
  /// Runs `action` once the current transaction has committed. It must be quick and
  /// must not write.
  void after_commit(std::function<void()> action) { actions_.push_back(std::move(action)); }
  std::size_t mark() const { return actions_.size(); }
  /// Forgets what was registered after `mark` (its write rolled back).
  void drop(std::size_t mark) { actions_.resize(mark); }
  std::vector<std::function<void()>> take() { return std::exchange(actions_, {}); }

  void set_timeline_listener(TimelineListener listener) { timeline_listener_ = std::move(listener); }
  /// Live subscribers hear of `events` (the run's, its last cursor before them `base`)
  /// once they are durable (api/run_streams.hpp).
  void publish_timeline(const std::string& run_id, std::int64_t base, std::vector<core::TimelineEvent> events) {
    if (!timeline_listener_ || events.empty()) return;
    after_commit([listener = timeline_listener_, run_id, base, events = std::move(events)]() mutable {
      listener(run_id, base, std::move(events));
    });
  }

 private:
  std::vector<std::function<void()>> actions_;
  TimelineListener timeline_listener_;
};

}  // namespace agentry::store

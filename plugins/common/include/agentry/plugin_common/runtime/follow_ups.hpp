// Messages sent to a running attempt, each the next turn once the current one ends; added
// from the control context, taken on the executor. Once closed (the attempt is ending),
// add() says no, and the host keeps the message for the run's next session.
#pragma once

#include <deque>
#include <mutex>
#include <optional>
#include <string>

namespace agentry::plugin_common::runtime {

class FollowUps {
 public:
  // [thread-safe] False once closed.
  bool add(std::string text) {
    std::lock_guard lock(mutex_);
    if (!open_) return false;
    waiting_.push_back(std::move(text));
    return true;
  }
  // [thread-safe] The oldest waiting message; with none, closes and returns nullopt, so no
  // message can slip in between "nothing waits" and the attempt's end.
  std::optional<std::string> next_or_close() {
    std::lock_guard lock(mutex_);
    if (waiting_.empty()) {
      open_ = false;
      return std::nullopt;
    }
    std::string text = std::move(waiting_.front());
    waiting_.pop_front();
    return text;
  }
  // [thread-safe] No more are taken; those waiting are dropped (an interrupt).
  void close() {
    std::lock_guard lock(mutex_);
    open_ = false;
    waiting_.clear();
  }

 private:
  std::mutex mutex_;
  bool open_ = true;
  std::deque<std::string> waiting_;
};

}  // namespace agentry::plugin_common::runtime

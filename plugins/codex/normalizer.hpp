// codex app-server notifications -> agentry events (the mapping table is in
// docs/backends/codex.md). Pure: no I/O, so golden transcripts recorded from the real
// binary can be replayed through it in unit tests.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::codex {

struct Event {
  uint16_t type = 0;  // AGENTRY_EVENT_*
  uint32_t flags = 0;
  std::string payload;  // a JSON object
};

// How codex ended the turn (turn/completed).
struct TurnEnd {
  std::string status;   // "completed" | "interrupted" | "failed"
  std::string message;  // the turn's error message, when it failed
};

struct UsageTotals {
  int64_t input = 0, cached = 0, output = 0, reasoning = 0, total = 0;
};

class Normalizer {
 public:
  // The thread this attempt drives: notifications naming another thread are ignored.
  void set_thread(std::string thread_id) { thread_id_ = std::move(thread_id); }
  // USAGE counts only our turn's tokens: totals reported for earlier turns (a resumed
  // thread reports its history) become the baseline.
  void set_turn(std::string turn_id) { turn_id_ = std::move(turn_id); }

  std::vector<Event> on_notification(std::string_view method, const boost::json::object& params);
  // An item of a turn this attempt did not see start (a turn taken over after a
  // restart), so that requests about it can be described. No event.
  void remember(const boost::json::object& item);

  const std::string& thread_id() const noexcept { return thread_id_; }
  const std::string& turn_id() const noexcept { return turn_id_; }
  const std::optional<TurnEnd>& turn_end() const noexcept { return turn_end_; }
  // The last `error` notification's message (a failed turn repeats it).
  const std::string& last_error() const noexcept { return last_error_; }
  // An item seen in item/started, by id (approval requests refer to items by id).
  const boost::json::object* item(const std::string& id) const;

 private:
  std::vector<Event> on_item(const boost::json::object& item, bool completed);
  Event diff_event(uint32_t flags) const;

  std::string thread_id_;
  std::string turn_id_;
  std::optional<TurnEnd> turn_end_;
  std::string last_error_;
  std::string diff_;  // the turn's latest turn/diff/updated
  UsageTotals baseline_;
  std::map<std::string, boost::json::object> items_;  // started, not yet completed
};

// The longest UTF-8-safe prefix of `text` within `max` bytes; `clipped` tells whether it cut.
std::string clip(std::string_view text, std::size_t max, bool* clipped = nullptr);

}  // namespace agentry::codex

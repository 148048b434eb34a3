// Incremental text/event-stream parser (WHATWG HTML §9.2.6) for the test client.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

namespace agentry::test {

struct SseEvent {
  std::string id;     // the `id:` field of this event ("" if it had none)
  std::string event;  // the `event:` field as sent ("" if none; browsers would say "message")
  std::string data;   // `data:` lines joined with '\n'
  std::optional<long long> retry;  // the `retry:` field, if this event carried one
};

class SseParser {
 public:
  /// Consumes decoded body bytes; complete events become available through pop().
  void feed(std::string_view bytes);
  [[nodiscard]] std::optional<SseEvent> pop();
  /// Comment lines (":..." — keep-alives) seen so far.
  [[nodiscard]] std::size_t comments() const { return comments_; }
  /// The last `id:` value seen in any dispatched event (what a browser would resend).
  [[nodiscard]] const std::string& last_event_id() const { return last_event_id_; }

 private:
  void line(std::string_view text);
  void dispatch();

  std::string buffer_;
  bool skip_lf_ = false;   // previous chunk ended in CR: a leading LF belongs to it
  bool bom_checked_ = false;
  SseEvent current_;
  bool has_fields_ = false;
  bool id_seen_ = false;
  std::deque<SseEvent> ready_;
  std::size_t comments_ = 0;
  std::string last_event_id_;
};

}  // namespace agentry::test

#pragma once
// Wall-clock timestamps as the API shows them: ISO 8601 UTC with milliseconds.

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

namespace agentry::core {

/// A timestamp's text held inline, without an allocation: the daemon's own form
/// ("2026-12-06T04:15:00.123Z", 24 characters, past std::string's inline size) and any
/// ISO 8601 form up to `capacity` (longer text is cut there). Every timeline event carries
/// one, and the store's writer makes thousands a commit.
class TimeText {
 public:
  static constexpr std::size_t capacity = 39;
  TimeText() = default;
  // Implicit both ways: a timestamp is its text, wherever a string went before.
  TimeText(std::string_view text) noexcept;
  TimeText(const std::string& text) noexcept : TimeText(std::string_view(text)) {}
  TimeText(const char* text) noexcept : TimeText(std::string_view(text)) {}
  std::string_view view() const noexcept { return {text_, size_}; }
  operator std::string_view() const noexcept { return view(); }
  std::string str() const { return std::string(view()); }
  bool empty() const noexcept { return size_ == 0; }
  friend bool operator==(const TimeText& a, std::string_view b) noexcept { return a.view() == b; }
  friend std::ostream& operator<<(std::ostream& out, const TimeText& t);

 private:
  char text_[capacity] = {};
  unsigned char size_ = 0;
};

std::int64_t now_ms();
std::string format_iso8601(std::int64_t unix_ms);
std::string now_iso8601();
/// now_iso8601() without an allocation.
TimeText now_time_text();
/// The instant of a timestamp format_iso8601() wrote; nullopt for anything else.
std::optional<std::int64_t> parse_iso8601(std::string_view text);

}  // namespace agentry::core

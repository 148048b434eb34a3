#include "core/clock.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <ostream>

namespace agentry::core {

std::int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::string format_iso8601(std::int64_t unix_ms) {
  std::int64_t whole = unix_ms / 1000;
  std::int64_t rest = unix_ms % 1000;
  if (rest < 0) {  // floor, so instants before 1970 print correctly
    rest += 1000;
    whole -= 1;
  }
  std::time_t seconds = static_cast<std::time_t>(whole);
  int millis = static_cast<int>(rest);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
  return buf;
}

std::optional<std::int64_t> parse_iso8601(std::string_view text) {
  if (text.size() != 24) return std::nullopt;
  std::tm tm{};
  int millis = 0;
  const std::string copy(text);
  char z = 0;
  if (std::sscanf(copy.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, &millis, &z) != 8 || z != 'Z')
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<std::int64_t>(timegm(&tm)) * 1000 + millis;
}

TimeText::TimeText(std::string_view text) noexcept {
  size_ = static_cast<unsigned char>(std::min(text.size(), capacity));
  std::memcpy(text_, text.data(), size_);
}

std::ostream& operator<<(std::ostream& out, const TimeText& t) { return out << t.view(); }

TimeText now_time_text() {
  // Events come by the thousand per millisecond: format each millisecond once per thread.
  thread_local std::int64_t formatted_ms = -1;
  thread_local TimeText formatted;
  const std::int64_t ms = now_ms();
  if (ms != formatted_ms) {
    formatted = format_iso8601(ms);
    formatted_ms = ms;
  }
  return formatted;
}

std::string now_iso8601() { return now_time_text().str(); }

}  // namespace agentry::core

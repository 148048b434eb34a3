#include "support/sse_parser.hpp"

#include <charconv>

namespace agentry::test {

void SseParser::feed(std::string_view bytes) {
  buffer_.append(bytes);
  if (!bom_checked_) {
    if (buffer_.size() < 3 && std::string_view("\xEF\xBB\xBF").starts_with(buffer_)) return;
    if (buffer_.starts_with("\xEF\xBB\xBF")) buffer_.erase(0, 3);
    bom_checked_ = true;
  }
  std::size_t pos = 0;
  if (skip_lf_ && !buffer_.empty()) {
    if (buffer_.front() == '\n') pos = 1;
    skip_lf_ = false;
  }
  for (;;) {
    const auto end = buffer_.find_first_of("\r\n", pos);
    if (end == std::string::npos) break;
    line(std::string_view(buffer_).substr(pos, end - pos));
    pos = end + 1;
    if (buffer_[end] == '\r') {
      if (pos < buffer_.size()) {
        if (buffer_[pos] == '\n') ++pos;
      } else {
        skip_lf_ = true;
      }
    }
  }
  buffer_.erase(0, pos);
}

std::optional<SseEvent> SseParser::pop() {
  if (ready_.empty()) return std::nullopt;
  SseEvent e = std::move(ready_.front());
  ready_.pop_front();
  return e;
}

void SseParser::line(std::string_view text) {
  if (text.empty()) {
    dispatch();
    return;
  }
  if (text.front() == ':') {
    ++comments_;
    return;
  }
  const auto colon = text.find(':');
  const std::string_view field = text.substr(0, colon);
  std::string_view value;
  if (colon != std::string_view::npos) {
    value = text.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    current_.data.append(value);
    current_.data.push_back('\n');
  } else if (field == "event") {
    current_.event = value;
  } else if (field == "id") {
    if (value.find('\0') != std::string_view::npos) return;
    current_.id = value;
    id_seen_ = true;
  } else if (field == "retry") {
    long long ms = 0;
    const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), ms);
    if (ec != std::errc{} || ptr != value.data() + value.size() || value.empty()) return;
    current_.retry = ms;
  } else {
    return;  // unknown fields are ignored
  }
  has_fields_ = true;
}

void SseParser::dispatch() {
  if (!has_fields_) return;
  if (!current_.data.empty()) current_.data.pop_back();  // the '\n' after the last data line
  if (id_seen_) last_event_id_ = current_.id;
  ready_.push_back(std::move(current_));
  current_ = SseEvent{};
  has_fields_ = false;
  id_seen_ = false;
}

}  // namespace agentry::test

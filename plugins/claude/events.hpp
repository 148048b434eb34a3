// The events the claude backend emits, as values: built by the pure protocol code,
// emitted by the attempt's worker thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>

namespace agentry::claude {

struct Event {
  uint16_t type = 0;     // AGENTRY_EVENT_*
  uint32_t flags = 0;    // AGENTRY_EVENT_FLAG_*
  std::string payload;   // a JSON object
};

// Bounds that keep every payload far below AGENTRY_EVENT_MAX_PAYLOAD_BYTES (1 MiB).
inline constexpr std::size_t kToolOutputBytes = 64 * 1024;   // TOOL_COMPLETED output
inline constexpr std::size_t kMessageBytes = 512 * 1024;     // MESSAGE_COMPLETED / REASONING text
inline constexpr std::size_t kNoticeBytes = 8 * 1024;        // NOTICE message

Event make_event(uint16_t type, const boost::json::object& payload, uint32_t flags = 0);

// {"level": level, "message": message}, the message cut at kNoticeBytes.
Event notice(std::string_view level, std::string_view message);

// `text` cut to at most `max_bytes` on a UTF-8 boundary, with invalid bytes repaired;
// `truncated` tells whether anything was cut.
std::string bounded_text(std::string_view text, std::size_t max_bytes, bool* truncated = nullptr);

}  // namespace agentry::claude

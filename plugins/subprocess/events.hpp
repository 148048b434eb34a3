// Events the subprocess backend emits, built as (type, flags, JSON payload) values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace agentry::subprocess {

struct Event {
  uint16_t type = 0;
  uint32_t flags = 0;
  std::string payload;  // a JSON object
};

// Limits (documented in docs/subprocess-protocol.md).
inline constexpr std::size_t kTextChunkBytes = 64 * 1024;         // text mode: one MESSAGE_DELTA at most
inline constexpr std::size_t kCompletedTextBytes = 256 * 1024;    // text mode: the MESSAGE_COMPLETED text
inline constexpr std::size_t kStderrLineBytes = 8 * 1024;         // one stderr NOTICE message
inline constexpr std::size_t kMaxStderrNotices = 1000;            // per attempt; the rest are counted
inline constexpr std::size_t kJsonlLineBytes = 1024 * 1024 + 4096;  // jsonl mode: one stdout line

// {"level": level, "message": message[, "stream": stream]}. `message` may hold any bytes.
Event notice(std::string_view level, std::string_view message, std::string_view stream = {});

// A stderr line: a warning NOTICE, the text capped at kStderrLineBytes.
Event stderr_notice(std::string_view line, std::size_t dropped);

// Text mode: {"text": chunk} flagged ephemeral.
Event message_delta(std::string_view text);

// The last kCompletedTextBytes of a child's stdout, for the MESSAGE_COMPLETED of text mode.
class OutputTail {
 public:
  void append(std::string_view text);
  bool empty() const noexcept { return total_ == 0; }
  // {"text": tail, "role": "assistant"}, the text starting with a marker when earlier
  // output was left out.
  Event completed_event() const;

 private:
  std::string kept_;       // at most 2 * kCompletedTextBytes; trimmed on read
  std::size_t total_ = 0;  // bytes appended so far
};

}  // namespace agentry::subprocess

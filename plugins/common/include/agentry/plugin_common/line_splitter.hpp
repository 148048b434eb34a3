// Splits a byte stream (a child's stdout or stderr) into lines with a bounded buffer.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::plugin_common {

// The length of the longest prefix of `text` that is at most `max_bytes` long and does
// not end inside a UTF-8 sequence (invalid bytes are not backed over more than 3 bytes).
std::size_t utf8_prefix_length(std::string_view text, std::size_t max_bytes) noexcept;

struct Line {
  std::string text;         // raw bytes, without the '\n'
  bool ends_line = true;    // false: a chunk of a longer line, or the unterminated tail at EOF
  std::size_t dropped = 0;  // bytes cut from this line (Overflow::truncate only)
};

class LineSplitter {
 public:
  enum class Overflow {
    split,    // a line longer than the limit comes out as several chunks; nothing is lost
    truncate  // the first `max_line` bytes come out, `dropped` counts the rest
  };

  LineSplitter(std::size_t max_line, Overflow overflow) noexcept : max_line_(max_line), overflow_(overflow) {}

  std::size_t max_line() const noexcept { return max_line_; }
  Overflow overflow() const noexcept { return overflow_; }

  // The lines (or chunks) completed by `data`. Memory stays within about `max_line`.
  std::vector<Line> feed(std::string_view data);

  // At end of stream: what is left, if anything.
  std::optional<Line> finish();

 private:
  void take(std::string_view segment, std::vector<Line>& out);
  Line flush(bool ends_line);

  std::size_t max_line_;
  Overflow overflow_;
  std::string buffer_;
  bool skipping_ = false;  // truncate mode: discarding bytes up to the next '\n'
  std::size_t dropped_ = 0;
};

}  // namespace agentry::plugin_common

// Turns the lines of a child's stdout and stderr into events, per output mode, with the
// per-attempt bounds (docs/subprocess-protocol.md). No Asio; runner.cpp feeds it.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "config.hpp"
#include "events.hpp"
#include "jsonl_protocol.hpp"
#include "agentry/plugin_common/line_splitter.hpp"

namespace agentry::subprocess {

// The splitter lives in plugins/common, shared with the other process-driving backends.
using plugin_common::Line;
using plugin_common::LineSplitter;
using plugin_common::utf8_prefix_length;

class OutputRouter {
 public:
  explicit OutputRouter(OutputMode mode) noexcept : mode_(mode) {}

  LineSplitter stdout_splitter() const noexcept;
  static LineSplitter stderr_splitter() noexcept;

  // The event for one line (or chunk), if any.
  std::optional<Event> on_stdout(Line line);
  std::optional<Event> on_stderr(const Line& line);

  // What to emit after both streams ended and before FINISHED: text mode's
  // MESSAGE_COMPLETED, a NOTICE counting stderr lines over the limit.
  std::vector<Event> closing_events() const;

  // jsonl mode: the last {"type":"finished"} line.
  const std::optional<Declared>& declared() const noexcept { return declared_; }

 private:
  OutputMode mode_;
  OutputTail tail_;
  std::optional<Declared> declared_;
  std::size_t stderr_notices_ = 0;
  std::size_t stderr_suppressed_ = 0;
};

}  // namespace agentry::subprocess

// How an attempt ended, turned into its FINISHED event (no Asio here).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "events.hpp"
#include "jsonl_protocol.hpp"

namespace agentry::subprocess {

enum class StopReason { none, interrupted, timed_out };

struct AttemptEnd {
  std::string start_error;      // non-empty: the command never ran (this says why)
  std::string internal_error;   // non-empty: the plugin failed while supervising it
  std::optional<int> exit_code; // it exited normally
  std::optional<int> signal;    // it was killed by a signal
  StopReason stop = StopReason::none;
  std::string interrupt_reason;
  int64_t timeout_sec = 0;
  std::optional<Declared> declared;  // jsonl mode: the last {"type":"finished"} line
};

// The FINISHED event (flagged terminal). Precedence: start failure, interrupt, timeout,
// signal or nonzero exit code, a declared error, success.
Event finished_event(const AttemptEnd& end);

// "SIGKILL" for 9, "signal 42" for one without a name.
std::string signal_name(int signal);

}  // namespace agentry::subprocess

#pragma once
// Following a run until it ends: `run`, `resume` and `logs -f`. Subscribes to the run's
// timeline (from a cursor) and detail, prints timeline events and task changes as they
// come, and stops when the run reaches an end status (success, blocked, exhausted,
// aborted, error). Then it reads whatever the timeline still holds from the store, so
// the output is complete however the notifications raced. A slow fallback poll
// (runs.get) covers changes that nobody announced, e.g. a daemon's run changed by an
// embedded CLI. Ctrl-C: aborts the run when `abort_on_interrupt` (the caller owns it).

#include "cli/client.hpp"

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

namespace agentry::cli {

struct FollowOptions {
  std::int64_t after = 0;           // timeline cursor to start after
  bool json_lines = false;          // print each timeline event as one JSON line, nothing else
  bool quiet = false;               // print nothing (--json run: only the final result)
  bool abort_on_interrupt = false;  // Ctrl-C aborts the run (run/resume own it)
  std::chrono::milliseconds progress_every{30000};  // "still running" note on stderr after silence
  std::chrono::milliseconds fallback_poll{2000};
};

struct FollowOutcome {
  std::string status;  // the run's status at the end
  std::string reason;  // its statusReason
  bool interrupted = false;
  std::optional<core::Error> error;  // following failed (connection lost, run deleted)
};

FollowOutcome follow_run(Client& client, const std::string& run_id, const FollowOptions& options,
                         std::ostream& out, std::ostream& err);

/// The cursor of the run's last timeline event (0 when it has none), paging through
/// runs.timelineHistory.
core::Result<std::int64_t> last_timeline_cursor(Client& client, const std::string& run_id);

}  // namespace agentry::cli

#pragma once
// Running one local program to completion with a deadline: started directly
// (posix_spawnp, no shell) in a process group of its own, optionally in a given
// directory, given `stdin_data` on stdin and extra environment variables. Its stdout
// and stderr are always drained (so it never blocks on a full pipe) but kept only up
// to a cap each; past the deadline its whole group is killed. It is done when it
// exits: its output is read until then and 150 ms more, not until every process that
// inherited its pipes (a server it left in the background) has closed them; those are
// left running. Blocking: callers run it on a thread of their own (a notifier worker,
// a run's hook lane), never on a request worker or the writer. Shared by completion
// notifications and lifecycle hooks.
// Another thread can stop it early through RunLimits::cancelled (an abort, a shutdown):
// the caller's thread checks it at least every 100 ms and then kills the whole group.

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace agentry::process {

struct RunRequest {
  std::vector<std::string> argv;
  std::string stdin_data;
  std::vector<std::pair<std::string, std::string>> env;  // added to (or replacing) the daemon's
  std::string cwd;  // empty: the daemon's
};

struct RunLimits {
  std::chrono::milliseconds timeout{10000};
  std::size_t max_stdout_bytes = 64 * 1024;
  std::size_t max_stderr_bytes = 64 * 1024;
  /// Polled while the program runs (thread-safe, cheap): true kills its process group at
  /// once and ends the run as cancelled. Empty: never.
  std::function<bool()> cancelled{};
};

struct RunResult {
  bool started = false;
  bool not_startable = false;    // ENOENT/EACCES: retrying will not help
  bool timed_out = false;
  bool cancelled = false;        // RunLimits::cancelled said so; its group was killed
  std::optional<int> exit_code;  // set when it exited
  std::optional<int> signal;     // set when a signal ended it
  std::string stdout_text, stderr_text;
  bool stdout_truncated = false, stderr_truncated = false;
  std::chrono::milliseconds duration{0};
  std::string error;  // empty when it exited 0
};

RunResult run_program(const RunRequest& request, const RunLimits& limits);

/// The first line of `text`, at most `max` bytes, valid UTF-8: for error messages.
std::string first_line(const std::string& text, std::size_t max = 300);

}  // namespace agentry::process

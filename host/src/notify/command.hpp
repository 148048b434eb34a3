#pragma once
// One local command delivery: the program is started directly (posix_spawnp, no shell)
// in a process group of its own, gets the event's JSON on stdin and a few
// AGENTRY_NOTIFY_* variables, and must exit 0 within the timeout; otherwise its group
// is killed. Its output is read (so it never blocks on a full pipe) up to a cap, and
// the start of stderr is kept for the error. Blocking: runs on a notifier worker.

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace agentry::notify {

struct CommandRequest {
  std::vector<std::string> argv;
  std::string stdin_data;
  std::vector<std::pair<std::string, std::string>> env;  // added to the daemon's environment
};

struct CommandLimits {
  std::chrono::milliseconds timeout{10000};
  std::size_t max_output_bytes = 64 * 1024;
};

struct CommandResult {
  bool delivered = false;  // exit status 0
  bool permanent = false;  // the program could not be started
  std::string error;
};

CommandResult run_command(const CommandRequest& request, const CommandLimits& limits);

}  // namespace agentry::notify

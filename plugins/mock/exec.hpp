// Running a child process for the mock's "exec" step.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace agentry::mock {

struct ExecResult {
  std::string output;      // stdout and stderr interleaved, at most `limit` bytes
  bool truncated = false;  // the child wrote more than `limit` bytes
  int exit_code = -1;      // the exit status, or 128 + the signal number
  bool stopped = false;    // killed because should_stop() became true
  std::string error;       // non-empty: the child could not be started
};

// Runs argv[0] (looked up in PATH) with `extra_env` ("KEY=VALUE", overriding) added to
// this process's environment, in directory `cwd` (empty: inherit), in its own process
// group. Blocks until the child exits; polls should_stop() every ~50 ms and, once it is
// true, kills the whole group. Call from a worker thread, never the control context.
ExecResult run_process(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                       const std::string& cwd, const std::function<bool()>& should_stop,
                       std::size_t limit = 64 * 1024);

}  // namespace agentry::mock

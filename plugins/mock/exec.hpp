// Running a child process for the mock's "exec" step, on the attempt's executor.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "agentry/plugin_common/runtime/child.hpp"

namespace agentry::mock {

struct ExecResult {
  std::string output;      // stdout and stderr interleaved, at most `limit` bytes
  bool truncated = false;  // the child wrote more than `limit` bytes
  int exit_code = -1;      // the exit status, or 128 + the signal number
  bool stopped = false;    // killed by the attempt's interrupt
  std::string error;       // non-empty: the child could not be started
};

// Starts argv[0] (looked up in the child's PATH) with `extra_env` ("KEY=VALUE",
// overriding) added to this process's environment, in directory `cwd` (empty: inherit), in
// its own process group; `done` runs on `io` once it exited. nullptr, with `done` already
// called with the error, when it cannot start. kill() on the child stops its whole group.
std::shared_ptr<plugin_common::runtime::Child> start_process(const boost::asio::any_io_executor& io,
                                                             const std::vector<std::string>& argv,
                                                             const std::vector<std::string>& extra_env,
                                                             const std::string& cwd,
                                                             std::function<void(ExecResult)> done,
                                                             std::size_t limit = 64 * 1024);

}  // namespace agentry::mock

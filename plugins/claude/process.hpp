// The claude child: spawned in its own process group with three pipes, and reaped.
// Plain POSIX on top of plugins/common; the attempt's worker thread owns it.
#pragma once

#include <optional>
#include <string>

#include <sys/types.h>

#include "agentry/plugin_common/child_process.hpp"
#include "config.hpp"

namespace agentry::claude {

class ClaudeProcess {
 public:
  // Looks the program up in the child's PATH and starts it in spec.cwd. Throws
  // std::runtime_error with a message for a person ("command 'claude' not found in PATH").
  explicit ClaudeProcess(const LaunchSpec& spec);
  ~ClaudeProcess();  // SIGKILL to a group still running, and reap
  ClaudeProcess(const ClaudeProcess&) = delete;
  ClaudeProcess& operator=(const ClaudeProcess&) = delete;

  int stdin_fd() const noexcept { return stdin_.get(); }  // non-blocking; -1 once closed
  int stdout_fd() const noexcept { return stdout_.get(); }
  int stderr_fd() const noexcept { return stderr_.get(); }
  void close_stdin() noexcept { stdin_ = {}; }
  void close_stdout() noexcept { stdout_ = {}; }
  void close_stderr() noexcept { stderr_ = {}; }

  // Signals the whole group (Claude and the commands it runs).
  void signal_group(int sig) const noexcept;
  // Reaps the leader without waiting; true once it has exited.
  bool poll_exit() noexcept;
  const std::optional<agentry::plugin_common::WaitStatus>& status() const noexcept { return status_; }
  pid_t pid() const noexcept { return pid_; }

 private:
  pid_t pid_ = -1;
  std::optional<agentry::plugin_common::WaitStatus> status_;
  agentry::plugin_common::Fd stdin_, stdout_, stderr_;
};

}  // namespace agentry::claude

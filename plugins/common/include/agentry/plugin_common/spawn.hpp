// Starting a child with posix_spawn: no fork() of a multi-threaded daemon, and the same
// child setup as prepare_child() (own process group, default signal dispositions, empty
// signal mask) done by the C library instead of code between fork and exec.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace agentry::plugin_common {

struct SpawnRequest {
  std::string program;            // a path (resolve_program() it first)
  std::vector<std::string> argv;  // argv[0] included
  std::vector<std::string> env;   // the whole environment, "KEY=VALUE"
  std::string cwd;                // empty: inherit
  int stdin_fd = -1;              // dup2'ed onto 0/1/2 in the child; -1: /dev/null
  int stdout_fd = -1;
  int stderr_fd = -1;
  std::string output_file;        // non-empty: stdout and stderr both go to this file (created, 0600)
  std::vector<std::pair<int, int>> more_fds;  // {ours, the child's}: dup2'ed after 0/1/2 (Chromium's 3 and 4)
};

// The child's pid, which is also its process group id. Throws std::system_error (with
// the spawn errno: ENOENT, EACCES, ...) when it cannot be started.
pid_t spawn_in_new_group(const SpawnRequest& request);

// waitpid(pid, WNOHANG): the raw wait status once the child has exited and is reaped.
bool try_reap(pid_t pid, int& status) noexcept;

}  // namespace agentry::plugin_common

// fork/exec of a child process for the test-support library (the daemon, git).
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <sys/types.h>

namespace agentry::test {

using EnvOverrides = std::vector<std::pair<std::string, std::string>>;

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0] is the program: a path, or a name looked up in PATH
  std::vector<std::string> env;   // the child's whole environment, "NAME=value"
  std::filesystem::path cwd;      // empty: inherit
  int stdin_fd = -1;              // -1: /dev/null
  int stdout_fd = -1;             // -1: inherit
  int stderr_fd = -1;             // -1: inherit
  bool new_process_group = false; // setpgid(0, 0): the child leads a group we can kill as a whole
  bool die_with_parent = false;   // PR_SET_PDEATHSIG(SIGKILL) — tied to the spawning *thread*
};

/// The current environment with `overrides` applied (replacing or adding NAME=value; when a
/// name repeats, the last one wins).
[[nodiscard]] std::vector<std::string> environment_with(const EnvOverrides& overrides);

/// Resolves a bare program name against PATH (names containing '/' are returned as is).
/// Throws std::runtime_error if not found.
[[nodiscard]] std::filesystem::path find_program(const std::string& name);

/// Starts the child; all other descriptors are closed in it. Throws std::runtime_error
/// ("cannot execute /x/agentry: No such file or directory") if exec fails.
[[nodiscard]] pid_t spawn_process(const SpawnOptions& options);

/// Exit code of a waitpid status: the exit status, or 128 + signal number.
[[nodiscard]] int decode_wait_status(int status);

/// Reaps `pid` if it has exited (EINTR-safe, non-blocking); returns its exit code.
[[nodiscard]] std::optional<int> try_reap(pid_t pid);

/// Waits up to `timeout` for `pid` to exit and reaps it; nullopt if still running.
[[nodiscard]] std::optional<int> wait_for_exit(pid_t pid, std::chrono::milliseconds timeout);

/// Stops a child that leads its own process group (SpawnOptions::new_process_group): SIGTERM
/// to the group, SIGKILL after `grace`, then SIGKILL to whatever is left in the group; reaps
/// the leader. Does nothing for pid <= 0.
void stop_process_group(pid_t leader, std::chrono::milliseconds grace = std::chrono::seconds(5));

/// Whether process `pid` exists and is not a zombie (any process, not only our children).
[[nodiscard]] bool process_alive(long pid);

/// The whole of /proc/<pid>/<name> (cmdline, environ, stat); "" when it cannot be read,
/// as when the process leaves while it is read.
[[nodiscard]] std::string proc_file(long pid, const char* name);

/// Live (non-zombie) processes whose command line contains `needle`.
[[nodiscard]] int live_processes_naming(const std::string& needle);

}  // namespace agentry::test

// POSIX pieces of running a child: pipes, process groups, signals, wait statuses.
// No Asio here; runner.cpp wires these into Boost.Process.
#pragma once

#include <optional>

namespace agentry::plugin_common {

// An owned file descriptor.
class Fd {
 public:
  Fd() noexcept = default;
  explicit Fd(int fd) noexcept : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();

  int get() const noexcept { return fd_; }
  int release() noexcept;

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read;
  Fd write;
};

// A pipe whose ends are close-on-exec and never 0, 1 or 2 (so dup2 onto the child's
// stdio cannot collide). Throws std::system_error.
Pipe make_pipe();

// /dev/null opened for reading, close-on-exec. Throws std::system_error.
Fd open_dev_null();

// In the forked child, before exec (async-signal-safe): a process group of its own, every
// signal disposition back to default, an empty signal mask. Returns 0 or an errno value.
int prepare_child() noexcept;

// kill(-pgid, sig), ignoring a group that no longer exists.
void kill_group(int pgid, int sig) noexcept;

// Writes to a pipe whose reader is gone fail with EPIPE instead of raising SIGPIPE in the
// daemon. Called on the plugin's I/O thread (children get an empty mask, see above).
void block_sigpipe_on_this_thread() noexcept;

struct WaitStatus {
  std::optional<int> exit_code;
  std::optional<int> signal;
};
WaitStatus decode_wait_status(int status) noexcept;

}  // namespace agentry::plugin_common

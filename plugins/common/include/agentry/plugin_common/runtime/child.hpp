// A child process driven from an Executor: its own process group, stdin written and
// stdout/stderr read asynchronously in bounded lines, and its exit noticed through a
// pidfd (no thread waits on it, nothing polls). Every handler runs on the instance's executor (its strand).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include "agentry/plugin_common/child_process.hpp"
#include "agentry/plugin_common/line_splitter.hpp"

namespace agentry::plugin_common::runtime {

struct ChildSpec {
  std::string program;            // a path (resolve_program() it first)
  std::vector<std::string> argv;  // argv[0] included
  std::vector<std::string> env;   // the whole environment, "KEY=VALUE"
  std::string cwd;                // empty: inherit
  std::size_t max_stdout_line = 16u << 20;       // what happens to longer lines: stdout_overflow
  LineSplitter::Overflow stdout_overflow = LineSplitter::Overflow::truncate;
  std::size_t max_stderr_line = 8 * 1024;
  std::size_t stderr_tail_bytes = 4 * 1024;       // kept for error messages
  std::size_t max_pending_stdin = 16u << 20;      // write() refuses beyond this
  bool stderr_to_stdout = false;                  // one stream, interleaved as written (2>&1)
  // Non-empty: stdout and stderr go to this file (created, 0600) instead of being read, and
  // stdin is /dev/null; the exit is reported as soon as the child is reaped (Chromium).
  std::string output_file{};
  std::vector<std::pair<int, int>> more_fds{};  // {ours, the child's}: inherited beyond 0/1/2
};

struct ChildHandlers {
  std::function<void(Line)> stdout_line;
  std::function<void(const Line&)> stderr_line;  // optional; always truncated at max_stderr_line
  // Once: the child has exited and its stdout and stderr have been read to the end (or
  // for a short while after the exit, when a grandchild keeps a pipe open).
  std::function<void(WaitStatus)> exited;
};

class Child : public std::enable_shared_from_this<Child> {
 public:
  // Spawns the child. Throws std::system_error (the spawn errno) when it cannot start.
  static std::shared_ptr<Child> spawn(const boost::asio::any_io_executor& io, ChildSpec spec, ChildHandlers handlers);
  ~Child();  // SIGKILL to the group if it still runs, then reaps it in the background
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const noexcept { return pid_; }
  bool running() const noexcept { return !status_; }

  // Queues bytes for stdin. False when stdin is closed or more than max_pending_stdin
  // bytes are already waiting (a child that stopped reading).
  bool write(std::string bytes);
  // Closes stdin once what is queued has been written.
  void close_stdin();
  // SIGTERM to the group now, SIGKILL after `grace` unless it exited. Idempotent.
  void terminate(std::chrono::milliseconds grace);
  // SIGKILL to the group now.
  void kill() noexcept;
  // `sig` to the group now, while the leader runs (a protocol's own interrupt: SIGINT).
  void signal_group(int sig) noexcept;
  // No handler runs any more: for an owner that goes away before the child is done.
  void forget_handlers() noexcept { handlers_ = {}; }

  // The last bytes the child wrote to stderr, whole lines.
  const std::string& stderr_tail() const noexcept { return stderr_tail_; }

 private:
  Child(const boost::asio::any_io_executor& io, ChildSpec spec, ChildHandlers handlers);
  void start(Fd stdin_fd, Fd stdout_fd, Fd stderr_fd);
  void read_stdout();
  void read_stderr();
  void write_next();
  void watch_exit();
  void poll_exit();  // where pidfd_open is missing: a timer, still nothing blocks
  void reaped(int raw_status);
  void maybe_report();

  boost::asio::any_io_executor io_;
  ChildSpec spec_;
  ChildHandlers handlers_;
  pid_t pid_ = -1;
  boost::asio::posix::stream_descriptor stdin_, stdout_, stderr_, pidfd_;
  boost::asio::steady_timer kill_timer_, drain_timer_, poll_timer_;
  LineSplitter out_lines_, err_lines_;
  std::string out_buffer_, err_buffer_;
  std::deque<std::string> pending_;
  std::size_t pending_bytes_ = 0;
  bool writing_ = false, stdin_closing_ = false, terminating_ = false;
  bool stdout_done_ = false, stderr_done_ = false, reported_ = false;
  std::optional<WaitStatus> status_;
  std::string stderr_tail_;
};

// An attempt's child asked to leave: its stdin closed (the agents driven here exit then), and
// terminate(grace) once `grace` has passed on `timer` without its exit. `timer` is the
// caller's, so a later expires_after() on it calls this off.
void wind_down(const std::shared_ptr<Child>& child, boost::asio::steady_timer& timer, std::chrono::milliseconds grace);

}  // namespace agentry::plugin_common::runtime

#include "process/runner.hpp"

#include "core/utf8.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <optional>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace agentry::process {
namespace {

// Output still on its way after the program exited (a last write of a child it left
// behind) is read this much longer, no more.
constexpr std::chrono::milliseconds exit_drain{150};

struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  bool valid() const { return fd >= 0; }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

/// A descriptor that polls readable once `pid` has exited, or -1 where there are none.
int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  return -1;
#endif
}

bool make_pipe(Fd& read_end, Fd& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  read_end.fd = fds[0];
  write_end.fd = fds[1];
  return true;
}

struct Pipes {
  Fd in_read, in_write, out_read, out_write, err_read, err_write;
};

/// Our environment, with request.env replacing and adding variables.
std::vector<std::string> program_environment(const RunRequest& request) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    bool replaced = false;
    for (const auto& [name, value] : request.env)
      if (entry.size() > name.size() && entry.substr(0, name.size()) == name && entry[name.size()] == '=')
        replaced = true;
    if (!replaced) env.emplace_back(entry);
  }
  for (const auto& [name, value] : request.env) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& storage) {
  std::vector<char*> out;
  for (auto& s : storage) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

/// Starts the program in a process group of its own (so a timeout kills everything it
/// started), the pipes as its stdio and default signal handling. Returns posix_spawnp's
/// error number, 0 once it runs.
int spawn_in_own_group(const RunRequest& request, Pipes& pipes, pid_t& pid) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipes.in_read.fd, 0);
  posix_spawn_file_actions_adddup2(&actions, pipes.out_write.fd, 1);
  posix_spawn_file_actions_adddup2(&actions, pipes.err_write.fd, 2);
  if (!request.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, request.cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  auto env_storage = program_environment(request);
  auto envp = c_strings(env_storage);
  std::vector<std::string> argv_storage = request.argv;
  auto argv = c_strings(argv_storage);
  const int spawned = ::posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return spawned;
}

/// How the conversation with the program ended.
struct Exchange {
  bool timed_out = false;
  bool cancelled = false;
  int status = 0;
  pid_t waited = 0;  // waitpid's answer: 0 while unreaped
  std::string stdout_text;
  std::string stderr_text;
};

/// Reads what is ready on `source` into `sink`, keeping at most `cap` bytes.
void read_some(Fd& source, std::string& sink, std::size_t cap, bool& truncated) {
  char buffer[4096];
  ssize_t r = ::read(source.fd, buffer, sizeof buffer);
  if (r > 0) {
    std::size_t keep = std::min<std::size_t>(static_cast<std::size_t>(r), cap - std::min(cap, sink.size()));
    sink.append(buffer, keep);
    if (keep < static_cast<std::size_t>(r)) truncated = true;
  } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
    source.reset();
  }
}

/// Feeds stdin and collects capped output until the program exits (and a short drain
/// after), the deadline passes, or the caller cancels.
Exchange exchange(const RunRequest& request, const RunLimits& limits, pid_t pid, Pipes& pipes,
                  std::chrono::steady_clock::time_point deadline, RunResult& out) {
  // The program is done when it exits, not when every process that inherited its pipes
  // has closed them: a hook that leaves a server running in the background must not be
  // waited on until its timeout. A pidfd tells of the exit at once where the kernel has
  // them; elsewhere the loop looks every few milliseconds.
  Fd exit_fd(open_pidfd(pid));
  Exchange x;
  std::size_t written = 0;
  std::optional<std::chrono::steady_clock::time_point> drain_until;  // set once it has exited
  // How often the loop looks again without being woken: for a cancellation, often
  // enough that an abort feels prompt; for the exit, when no pidfd tells of it.
  const long long slice_ms = !exit_fd.valid() ? 20 : limits.cancelled ? 100 : 1000;
  if (request.stdin_data.empty()) pipes.in_write.reset();
  for (;;) {
    if (!drain_until) {
      x.waited = ::waitpid(pid, &x.status, WNOHANG);
      if (x.waited != 0) {  // it exited (or was reaped elsewhere: ECHILD, status lost)
        pipes.in_write.reset();  // what it did not read, nobody will
        drain_until = std::min(deadline, std::chrono::steady_clock::now() + exit_drain);
      }
    }
    if (drain_until && pipes.out_read.fd < 0 && pipes.err_read.fd < 0) break;
    const auto until = drain_until.value_or(deadline);
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      x.timed_out = !drain_until;
      break;
    }
    if (!drain_until && limits.cancelled && limits.cancelled()) {
      x.cancelled = true;
      break;
    }
    pollfd fds[4];
    nfds_t n = 0;
    if (pipes.in_write.fd >= 0) fds[n++] = {pipes.in_write.fd, POLLOUT, 0};
    if (pipes.out_read.fd >= 0) fds[n++] = {pipes.out_read.fd, POLLIN, 0};
    if (pipes.err_read.fd >= 0) fds[n++] = {pipes.err_read.fd, POLLIN, 0};
    if (!drain_until && exit_fd.valid()) fds[n++] = {exit_fd.fd, POLLIN, 0};
    int ready = ::poll(fds, n, static_cast<int>(std::min<long long>(left.count(), slice_ms)));
    if (ready < 0 && errno != EINTR) break;
    for (nfds_t i = 0; i < n && ready > 0; ++i) {
      if (fds[i].revents == 0 || fds[i].fd == exit_fd.fd) continue;  // the exit is reaped above
      if (fds[i].fd == pipes.in_write.fd) {
        ssize_t w = ::write(pipes.in_write.fd, request.stdin_data.data() + written, request.stdin_data.size() - written);
        if (w > 0) written += static_cast<std::size_t>(w);
        if (w < 0 && errno != EAGAIN && errno != EINTR) pipes.in_write.reset();  // EPIPE: it stopped reading
        else if (written >= request.stdin_data.size()) pipes.in_write.reset();
      } else if (fds[i].fd == pipes.out_read.fd) {
        read_some(pipes.out_read, x.stdout_text, limits.max_stdout_bytes, out.stdout_truncated);
      } else {
        read_some(pipes.err_read, x.stderr_text, limits.max_stderr_bytes, out.stderr_truncated);
      }
    }
  }
  return x;
}

/// Kills the group of a program that timed out or was cancelled and reaps it; waits (to
/// the deadline) for one the loop left unreaped.
void reap(pid_t pid, const RunLimits& limits, std::chrono::steady_clock::time_point deadline, Exchange& x) {
  // Only while it is unreaped does its pid still name its group.
  if (x.timed_out || x.cancelled) ::kill(-pid, SIGKILL);
  while (x.waited == 0) {
    x.waited = ::waitpid(pid, &x.status, WNOHANG);
    if (x.waited != 0) break;
    if (!x.timed_out && !x.cancelled) {
      if (std::chrono::steady_clock::now() >= deadline) {
        x.timed_out = true;
        ::kill(-pid, SIGKILL);
      } else if (limits.cancelled && limits.cancelled()) {
        x.cancelled = true;
        ::kill(-pid, SIGKILL);
      }
    }
    ::usleep(5000);
  }
}

/// Fills the result's outcome fields and its one-line error from how it ended.
void describe_end(const RunRequest& request, const RunLimits& limits, Exchange& x, RunResult& out) {
  out.stdout_text = std::move(x.stdout_text);
  out.stderr_text = std::move(x.stderr_text);
  const std::string& program = request.argv.front();
  if (x.cancelled) {
    out.cancelled = true;
    out.error = program + " was cancelled; its process group was killed";
    return;
  }
  if (x.timed_out) {
    out.timed_out = true;
    out.error = program + " did not finish within " + std::to_string(limits.timeout.count()) + " ms";
    return;
  }
  if (x.waited < 0) {
    // ECHILD: something else in the process reaped it; the status is lost.
    out.error = "the exit status of " + program + " was lost";
    return;
  }
  if (WIFEXITED(x.status)) out.exit_code = WEXITSTATUS(x.status);
  else if (WIFSIGNALED(x.status)) out.signal = WTERMSIG(x.status);
  if (WIFEXITED(x.status) && WEXITSTATUS(x.status) == 0) return;
  std::string how = WIFEXITED(x.status) ? "exited with status " + std::to_string(WEXITSTATUS(x.status))
                                        : "was killed by signal " + std::to_string(WTERMSIG(x.status));
  auto detail = first_line(out.stderr_text.empty() ? out.stdout_text : out.stderr_text);
  out.error = program + " " + how + (detail.empty() ? "" : ": " + detail);
}

}  // namespace

std::string first_line(const std::string& text, std::size_t max) {
  auto line = text.substr(0, text.find('\n'));
  return core::sanitize_utf8(std::string_view(line).substr(0, max));
}

RunResult run_program(const RunRequest& request, const RunLimits& limits) {
  RunResult out;
  const auto started_at = std::chrono::steady_clock::now();
  auto finish = [&]() -> RunResult& {
    out.duration = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started_at);
    return out;
  };
  {
    // A program that exits without reading its stdin makes our write fail with EPIPE;
    // on this (caller-owned) thread that must not become a SIGPIPE for the daemon.
    sigset_t pipe_only;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &pipe_only, nullptr);
  }
  if (request.argv.empty() || request.argv.front().empty()) {
    out.not_startable = true;
    out.error = "no program to run";
    return finish();
  }
  Pipes pipes;
  if (!make_pipe(pipes.in_read, pipes.in_write) || !make_pipe(pipes.out_read, pipes.out_write) ||
      !make_pipe(pipes.err_read, pipes.err_write)) {
    out.error = std::string("cannot create pipes: ") + std::strerror(errno);
    return finish();
  }
  pid_t pid = -1;
  if (int spawned = spawn_in_own_group(request, pipes, pid); spawned != 0) {
    out.not_startable = spawned == ENOENT || spawned == EACCES;
    out.error = "cannot start " + request.argv.front() + ": " + std::strerror(spawned);
    return finish();
  }
  out.started = true;
  pipes.in_read.reset();
  pipes.out_write.reset();
  pipes.err_write.reset();
  for (int fd : {pipes.in_write.fd, pipes.out_read.fd, pipes.err_read.fd})
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  const auto deadline = std::chrono::steady_clock::now() + limits.timeout;
  Exchange x = exchange(request, limits, pid, pipes, deadline, out);
  pipes.in_write.reset();
  pipes.out_read.reset();
  pipes.err_read.reset();
  reap(pid, limits, deadline, x);
  describe_end(request, limits, x, out);
  return finish();
}

}  // namespace agentry::process

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
  Fd in_read, in_write, out_read, out_write, err_read, err_write;
  if (!make_pipe(in_read, in_write) || !make_pipe(out_read, out_write) || !make_pipe(err_read, err_write)) {
    out.error = std::string("cannot create pipes: ") + std::strerror(errno);
    return finish();
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_read.fd, 0);
  posix_spawn_file_actions_adddup2(&actions, out_write.fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_write.fd, 2);
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

  std::vector<std::string> env_storage;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    bool replaced = false;
    for (const auto& [name, value] : request.env)
      if (entry.size() > name.size() && entry.substr(0, name.size()) == name && entry[name.size()] == '=')
        replaced = true;
    if (!replaced) env_storage.emplace_back(entry);
  }
  for (const auto& [name, value] : request.env) env_storage.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_storage = request.argv;
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);

  pid_t pid = -1;
  int spawned = ::posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (spawned != 0) {
    out.not_startable = spawned == ENOENT || spawned == EACCES;
    out.error = "cannot start " + request.argv.front() + ": " + std::strerror(spawned);
    return finish();
  }
  out.started = true;
  in_read.reset();
  out_write.reset();
  err_write.reset();
  for (int fd : {in_write.fd, out_read.fd, err_read.fd}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);

  // The program is done when it exits, not when every process that inherited its pipes
  // has closed them: a hook that leaves a server running in the background must not be
  // waited on until its timeout. A pidfd tells of the exit at once where the kernel has
  // them; elsewhere the loop looks every few milliseconds.
  Fd exit_fd(open_pidfd(pid));
  std::size_t written = 0;
  std::string stdout_text, stderr_text;
  const auto deadline = std::chrono::steady_clock::now() + limits.timeout;
  std::optional<std::chrono::steady_clock::time_point> drain_until;  // set once it has exited
  bool timed_out = false;
  bool cancelled = false;
  int status = 0;
  pid_t waited = 0;
  // How often the loop looks again without being woken: for a cancellation, often
  // enough that an abort feels prompt; for the exit, when no pidfd tells of it.
  const long long slice_ms = !exit_fd.valid() ? 20 : limits.cancelled ? 100 : 1000;
  auto cancel_requested = [&] { return limits.cancelled && limits.cancelled(); };
  if (request.stdin_data.empty()) in_write.reset();
  for (;;) {
    if (!drain_until) {
      waited = ::waitpid(pid, &status, WNOHANG);
      if (waited != 0) {  // it exited (or was reaped elsewhere: ECHILD, status lost)
        in_write.reset();  // what it did not read, nobody will
        drain_until = std::min(deadline, std::chrono::steady_clock::now() + exit_drain);
      }
    }
    if (drain_until && out_read.fd < 0 && err_read.fd < 0) break;
    const auto until = drain_until.value_or(deadline);
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = !drain_until;
      break;
    }
    if (!drain_until && cancel_requested()) {
      cancelled = true;
      break;
    }
    pollfd fds[4];
    nfds_t n = 0;
    if (in_write.fd >= 0) fds[n++] = {in_write.fd, POLLOUT, 0};
    if (out_read.fd >= 0) fds[n++] = {out_read.fd, POLLIN, 0};
    if (err_read.fd >= 0) fds[n++] = {err_read.fd, POLLIN, 0};
    if (!drain_until && exit_fd.valid()) fds[n++] = {exit_fd.fd, POLLIN, 0};
    int ready = ::poll(fds, n, static_cast<int>(std::min<long long>(left.count(), slice_ms)));
    if (ready < 0 && errno != EINTR) break;
    for (nfds_t i = 0; i < n && ready > 0; ++i) {
      if (fds[i].revents == 0 || fds[i].fd == exit_fd.fd) continue;  // the exit is reaped above
      if (fds[i].fd == in_write.fd) {
        ssize_t w = ::write(in_write.fd, request.stdin_data.data() + written, request.stdin_data.size() - written);
        if (w > 0) written += static_cast<std::size_t>(w);
        if (w < 0 && errno != EAGAIN && errno != EINTR) in_write.reset();  // EPIPE: it stopped reading
        else if (written >= request.stdin_data.size()) in_write.reset();
        continue;
      }
      const bool is_out = fds[i].fd == out_read.fd;
      Fd& source = is_out ? out_read : err_read;
      std::string& sink = is_out ? stdout_text : stderr_text;
      const std::size_t cap = is_out ? limits.max_stdout_bytes : limits.max_stderr_bytes;
      bool& truncated = is_out ? out.stdout_truncated : out.stderr_truncated;
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
  }
  in_write.reset();
  out_read.reset();
  err_read.reset();
  // Only while it is unreaped does its pid still name its group.
  if (timed_out || cancelled) ::kill(-pid, SIGKILL);
  // Killed just now, or the loop stopped on a poll error: wait for it, up to the deadline.
  while (waited == 0) {
    waited = ::waitpid(pid, &status, WNOHANG);
    if (waited != 0) break;
    if (!timed_out && !cancelled) {
      if (std::chrono::steady_clock::now() >= deadline) {
        timed_out = true;
        ::kill(-pid, SIGKILL);
      } else if (cancel_requested()) {
        cancelled = true;
        ::kill(-pid, SIGKILL);
      }
    }
    ::usleep(5000);
  }
  out.stdout_text = std::move(stdout_text);
  out.stderr_text = std::move(stderr_text);
  if (cancelled) {
    out.cancelled = true;
    out.error = request.argv.front() + " was cancelled; its process group was killed";
    return finish();
  }
  if (timed_out) {
    out.timed_out = true;
    out.error = request.argv.front() + " did not finish within " + std::to_string(limits.timeout.count()) + " ms";
    return finish();
  }
  if (waited < 0) {
    // ECHILD: something else in the process reaped it; the status is lost.
    out.error = "the exit status of " + request.argv.front() + " was lost";
    return finish();
  }
  if (WIFEXITED(status)) out.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) out.signal = WTERMSIG(status);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return finish();
  std::string how = WIFEXITED(status) ? "exited with status " + std::to_string(WEXITSTATUS(status))
                                      : "was killed by signal " + std::to_string(WTERMSIG(status));
  auto detail = first_line(out.stderr_text.empty() ? out.stdout_text : out.stderr_text);
  out.error = request.argv.front() + " " + how + (detail.empty() ? "" : ": " + detail);
  return finish();
}

}  // namespace agentry::process

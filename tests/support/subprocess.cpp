#include "support/subprocess.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/socket_io.hpp"

extern char** environ;  // NOLINT: POSIX

namespace agentry::test {

std::vector<std::string> environment_with(const EnvOverrides& overrides) {
  // The last override of a name wins; overridden names are dropped from the inherited set.
  auto overridden = [&](std::string_view name, std::size_t from) {
    for (std::size_t i = from; i < overrides.size(); ++i) {
      if (overrides[i].first == name) return true;
    }
    return false;
  };
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    if (!overridden(entry.substr(0, entry.find('=')), 0)) env.emplace_back(entry);
  }
  for (std::size_t i = 0; i < overrides.size(); ++i) {
    if (!overridden(overrides[i].first, i + 1)) env.push_back(overrides[i].first + "=" + overrides[i].second);
  }
  return env;
}

std::filesystem::path find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  while (!dirs.empty()) {
    const auto colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    dirs.remove_prefix(colon == std::string_view::npos ? dirs.size() : colon + 1);
    const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  throw std::runtime_error("program \"" + name + "\" not found in PATH");
}

namespace {

// Runs in the child between fork and exec: async-signal-safe calls only.
[[noreturn]] void child_exec(const SpawnOptions& o, const char* program, char* const* argv,
                             char* const* envp, int null_fd, int err_fd, pid_t parent) {
  auto fail = [err_fd](int err) {
    while (::write(err_fd, &err, sizeof err) < 0 && errno == EINTR) {
    }
    ::_exit(127);
  };
  if (o.new_process_group && ::setpgid(0, 0) != 0) fail(errno);
  if (o.die_with_parent) {
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail(errno);
    if (::getppid() != parent) ::_exit(127);  // the parent is already gone
  }
  // Default signal handling for the child, whatever the test process set up.
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (const int sig : {SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD}) ::signal(sig, SIG_DFL);

  const int targets[3] = {0, 1, 2};
  const int sources[3] = {o.stdin_fd >= 0 ? o.stdin_fd : null_fd, o.stdout_fd, o.stderr_fd};
  for (int i = 0; i < 3; ++i) {
    if (sources[i] < 0) continue;
    if (sources[i] == targets[i]) {
      if (::fcntl(targets[i], F_SETFD, 0) != 0) fail(errno);
    } else if (::dup2(sources[i], targets[i]) < 0) {
      fail(errno);
    }
  }
  // Everything else is closed at exec (err_fd too, which tells the parent exec worked).
  if (::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
    for (int fd = 3; fd < 4096; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  if (!o.cwd.empty() && ::chdir(o.cwd.c_str()) != 0) fail(errno);
  ::execve(program, argv, envp);
  fail(errno);
  ::_exit(127);
}

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

}  // namespace

pid_t spawn_process(const SpawnOptions& options) {
  if (options.argv.empty()) throw std::invalid_argument("spawn_process: empty argv");
  // Everything the child needs is prepared before fork: no allocation after it.
  const std::string program = find_program(options.argv.front()).string();
  std::vector<char*> argv = c_strings(options.argv);
  std::vector<char*> envp = c_strings(options.env);
  UniqueFd null_fd(::open("/dev/null", O_RDWR | O_CLOEXEC));
  if (!null_fd) throw std::runtime_error(errno_message("open /dev/null", errno));
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error(errno_message("pipe2", errno));
  UniqueFd err_read(pipe_fds[0]);
  UniqueFd err_write(pipe_fds[1]);
  const pid_t parent = ::getpid();

  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(errno_message("fork", errno));
  if (pid == 0) {
    child_exec(options, program.c_str(), argv.data(), envp.data(), null_fd.get(), err_write.get(),
               parent);
  }
  if (options.new_process_group) ::setpgid(pid, pid);  // closes the race with killpg()
  err_write.reset();
  int child_errno = 0;
  ssize_t n = 0;
  do {
    n = ::read(err_read.get(), &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  if (n > 0) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    throw std::runtime_error(errno_message("cannot execute " + program, child_errno));
  }
  return pid;
}

int decode_wait_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

std::optional<int> try_reap(pid_t pid) {
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return decode_wait_status(status);
    if (r == 0) return std::nullopt;
    if (errno == EINTR) continue;
    throw std::runtime_error(errno_message("waitpid " + std::to_string(pid), errno));
  }
}

std::optional<int> wait_for_exit(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  // A pidfd is readable the moment the child exits: no sleep to overshoot it by.
  const UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  auto pause = std::chrono::milliseconds(1);
  std::optional<int> code;
  for (;;) {
    if ((code = try_reap(pid))) break;
    const auto now = Clock::now();
    if (now >= deadline) break;
    if (pidfd.get() >= 0) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now);
      pollfd ready{pidfd.get(), POLLIN, 0};
      ::poll(&ready, 1, static_cast<int>(std::min<std::int64_t>(left.count(), 1000)));
    } else {
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(20));
    }
  }
  return code;
}

void stop_process_group(pid_t leader, std::chrono::milliseconds grace) {
  if (leader <= 0) return;
  ::kill(-leader, SIGTERM);
  if (!wait_for_exit(leader, grace)) {
    ::kill(-leader, SIGKILL);
    static_cast<void>(wait_for_exit(leader, grace));
  }
  ::kill(-leader, SIGKILL);  // anything left in the group
}

bool process_alive(long pid) {
  const std::string content = proc_file(pid, "stat");
  const std::size_t paren = content.rfind(')');  // the command name may contain ')'
  return paren != std::string::npos && paren + 2 < content.size() && content[paren + 2] != 'Z';
}

std::string proc_file(long pid, const char* name) {
  // Plain reads: a stream's read of a file whose process just left throws (ESRCH).
  const int fd = ::open(("/proc/" + std::to_string(pid) + "/" + name).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string out;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      out.append(buffer, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      if (n < 0) out.clear();
      break;
    }
  }
  ::close(fd);
  return out;
}

int live_processes_naming(const std::string& needle) {
  int count = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::stol(name);
    if (proc_file(pid, "cmdline").find(needle) != std::string::npos && process_alive(pid)) ++count;
  }
  return count;
}

}  // namespace agentry::test

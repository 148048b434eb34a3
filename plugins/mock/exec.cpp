#include "mock/exec.hpp"

#include "agentry/plugin_common/environment.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

extern char** environ;

namespace agentry::mock {
namespace {

// This process's environment with `extra` ("KEY=VALUE") added, later entries winning.
std::vector<std::string> merged_environment(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) env.emplace_back(*e);
  for (const std::string& kv : extra) {
    const std::string key = kv.substr(0, kv.find('=') + 1);  // "KEY=" (or all of kv)
    bool replaced = false;
    for (std::string& existing : env)
      if (existing.rfind(key, 0) == 0) existing = kv, replaced = true;
    if (!replaced) env.push_back(kv);
  }
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// posix_spawn's attributes and file actions, released on every path.
struct SpawnSetup {
  posix_spawnattr_t attr{};
  posix_spawn_file_actions_t actions{};
  SpawnSetup() {
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_init(&actions);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

// Reads what is available on `fd` into `r`. Returns false at end of file.
bool drain(int fd, ExecResult& r, std::size_t limit) {
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) return false;
    if (n < 0) return errno == EAGAIN || errno == EINTR;
    const std::size_t room = limit - std::min(limit, r.output.size());
    r.output.append(buf, std::min(room, static_cast<std::size_t>(n)));
    if (static_cast<std::size_t>(n) > room) r.truncated = true;
  }
}

}  // namespace

ExecResult run_process(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                       const std::string& cwd, const std::function<bool()>& should_stop, std::size_t limit) {
  ExecResult result;
  std::vector<std::string> args = argv;
  std::vector<std::string> env = merged_environment(extra_env);
  // A bare name is looked up in the child's PATH (the host puts its own directory
  // first), not in the daemon's: posix_spawnp would search the latter.
  const auto resolved = agentry::plugin_common::resolve_program(args.front(), env, cwd);
  if (!resolved.error.empty()) {
    result.error = resolved.error;
    return result;
  }
  args.front() = resolved.path;
  std::vector<char*> c_args = c_strings(args);
  std::vector<char*> c_env = c_strings(env);

  int fds[2];
  // O_CLOEXEC: the read end must not leak into this child or any other one spawned
  // concurrently; dup2 onto 1 and 2 clears the flag for the child's copies.
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    result.error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  SpawnSetup setup;
  // Own process group, so an interrupt kills the child's children too; default signal
  // dispositions and an empty mask, whatever the daemon set for itself.
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setflags(&setup.attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&setup.attr, 0);
  posix_spawnattr_setsigmask(&setup.attr, &none);
  posix_spawnattr_setsigdefault(&setup.attr, &all);
  posix_spawn_file_actions_addopen(&setup.actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&setup.actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&setup.actions, fds[1], 2);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&setup.actions, cwd.c_str());

  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, c_args[0], &setup.actions, &setup.attr, c_args.data(), c_env.data());
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    result.error = "cannot start " + argv[0] + (cwd.empty() ? "" : " in " + cwd) + ": " + std::strerror(rc);
    return result;
  }
  ::fcntl(fds[0], F_SETFL, O_NONBLOCK);

  int fd = fds[0];
  bool exited = false;
  bool status_known = false;
  int status = 0;
  while (!exited || fd >= 0) {
    if (!exited && !result.stopped && should_stop()) {  // never signal a reaped pid
      ::kill(-pid, SIGKILL);
      result.stopped = true;
    }
    if (fd >= 0) {
      pollfd p{fd, POLLIN, 0};
      ::poll(&p, 1, exited ? 0 : 50);  // only a pause: the fd is non-blocking
      const bool open = drain(fd, result, limit);
      // After the child exits, take what is buffered and stop: a grandchild holding the
      // pipe open must not keep the step waiting.
      if (!open || exited) {
        ::close(fd);
        fd = -1;
      }
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!exited) {
      const pid_t w = ::waitpid(pid, &status, WNOHANG);
      // ECHILD: something else in the process (a SIGCHLD reaper) took the status first.
      // Then the exit code stays -1.
      if (w == pid) exited = status_known = true;
      else if (w < 0 && errno == ECHILD) exited = true;
    }
  }
  if (!status_known) return result;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  return result;
}

}  // namespace agentry::mock

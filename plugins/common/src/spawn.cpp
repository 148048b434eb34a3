#include "agentry/plugin_common/spawn.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <system_error>

#include "agentry/plugin_common/child_process.hpp"

namespace agentry::plugin_common {

namespace {

// Owns the posix_spawn attribute objects for one call.
struct SpawnSetup {
  posix_spawn_file_actions_t actions{};
  posix_spawnattr_t attr{};
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

void check(int err, const char* what) {
  if (err != 0) throw std::system_error(err, std::generic_category(), what);
}

}  // namespace

pid_t spawn_in_new_group(const SpawnRequest& request) {
  SpawnSetup setup;
  Fd dev_null;
  auto stdio = [&](int fd, int target) {
    if (fd < 0) {
      if (dev_null.get() < 0) dev_null = open_dev_null();
      fd = dev_null.get();
    }
    // The sources are close-on-exec (make_pipe), and dup2 clears that flag on the target.
    check(posix_spawn_file_actions_adddup2(&setup.actions, fd, target), "posix_spawn_file_actions_adddup2");
  };
  stdio(request.stdin_fd, 0);
  if (!request.output_file.empty()) {
    check(posix_spawn_file_actions_addopen(&setup.actions, 1, request.output_file.c_str(),
                                           O_WRONLY | O_CREAT | O_TRUNC, 0600),
          "posix_spawn_file_actions_addopen");
    check(posix_spawn_file_actions_adddup2(&setup.actions, 1, 2), "posix_spawn_file_actions_adddup2");
  } else {
    stdio(request.stdout_fd, 1);
    stdio(request.stderr_fd, 2);
  }
  for (const auto& [ours, theirs] : request.more_fds)
    check(posix_spawn_file_actions_adddup2(&setup.actions, ours, theirs), "posix_spawn_file_actions_adddup2");
  if (!request.cwd.empty())
    check(posix_spawn_file_actions_addchdir_np(&setup.actions, request.cwd.c_str()), "posix_spawn chdir");

  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  check(posix_spawnattr_setsigdefault(&setup.attr, &all), "posix_spawnattr_setsigdefault");
  check(posix_spawnattr_setsigmask(&setup.attr, &none), "posix_spawnattr_setsigmask");
  check(posix_spawnattr_setpgroup(&setup.attr, 0), "posix_spawnattr_setpgroup");
  check(posix_spawnattr_setflags(
            &setup.attr, static_cast<short>(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)),
        "posix_spawnattr_setflags");

  std::vector<char*> argv;
  for (const std::string& arg : request.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> env;
  for (const std::string& entry : request.env) env.push_back(const_cast<char*>(entry.c_str()));
  env.push_back(nullptr);

  pid_t pid = -1;
  check(posix_spawn(&pid, request.program.c_str(), &setup.actions, &setup.attr, argv.data(), env.data()),
        "posix_spawn");
  return pid;
}

bool try_reap(pid_t pid, int& status) noexcept {
  int raw = 0;
  pid_t got;
  do {
    got = ::waitpid(pid, &raw, WNOHANG);
  } while (got < 0 && errno == EINTR);
  if (got != pid) return false;
  status = raw;
  return true;
}

}  // namespace agentry::plugin_common

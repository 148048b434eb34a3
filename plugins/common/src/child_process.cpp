#include "agentry/plugin_common/child_process.hpp"

#include <cerrno>
#include <csignal>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

namespace agentry::plugin_common {

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    Fd old(std::exchange(fd_, other.release()));
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

int Fd::release() noexcept { return std::exchange(fd_, -1); }

namespace {

[[noreturn]] void throw_errno(const char* what) { throw std::system_error(errno, std::generic_category(), what); }

// Moves a descriptor that landed on 0..2 (a daemon that closed its stdio) above them.
Fd above_stdio(int fd) {
  Fd owned(fd);
  if (fd > 2) return owned;
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (moved < 0) throw_errno("fcntl(F_DUPFD_CLOEXEC)");
  return Fd(moved);
}

}  // namespace

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw_errno("pipe2");
  Fd read_end(fds[0]);
  Fd write_end(fds[1]);
  return Pipe{above_stdio(read_end.release()), above_stdio(write_end.release())};
}

Fd open_dev_null() {
  const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw_errno("open(/dev/null)");
  return above_stdio(fd);
}

int prepare_child() noexcept {
  if (::setpgid(0, 0) != 0) return errno;
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &dfl, nullptr);  // EINVAL for reserved ones: fine
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  return 0;
}

void kill_group(int pgid, int sig) noexcept {
  if (pgid > 1) ::kill(-pgid, sig);
}

void block_sigpipe_on_this_thread() noexcept {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

WaitStatus decode_wait_status(int status) noexcept {
  WaitStatus out;
  if (WIFEXITED(status)) out.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) out.signal = WTERMSIG(status);
  return out;
}

}  // namespace agentry::plugin_common

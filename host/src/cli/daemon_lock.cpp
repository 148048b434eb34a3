#include "cli/daemon_lock.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace agentry::cli {
namespace {

long holder_pid(int fd) {
  char buffer[32] = {};
  const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
  return n > 0 ? std::strtol(buffer, nullptr, 10) : 0;
}

// The file says who holds it, for the next daemon's message.
void record_holder(int fd) {
  const std::string pid = std::to_string(static_cast<long>(::getpid())) + "\n";
  if (::ftruncate(fd, 0) != 0) return;  // only the message would lack the pid
  [[maybe_unused]] const ssize_t written = ::pwrite(fd, pid.data(), pid.size(), 0);
}

}  // namespace

core::Result<DaemonLock> DaemonLock::acquire(const std::filesystem::path& home, std::chrono::milliseconds wait,
                                             const std::function<void(long)>& on_wait) {
  std::error_code ec;
  std::filesystem::create_directories(home, ec);
  const auto path = home / "daemon.lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0)
    return core::fail(core::ErrorCode::internal, "cannot open " + path.string() + ": " + std::strerror(errno));
  const auto deadline = std::chrono::steady_clock::now() + wait;
  bool told = false;
  for (;;) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      record_holder(fd);
      return DaemonLock(fd);
    }
    if (errno != EWOULDBLOCK && errno != EINTR) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      return core::fail(core::ErrorCode::internal, "cannot lock " + path.string() + ": " + why);
    }
    const long holder = holder_pid(fd);
    if (std::chrono::steady_clock::now() >= deadline) {
      ::close(fd);
      return core::fail(core::ErrorCode::conflict,
                        "another agentry daemon (pid " + std::to_string(holder) + ") serves " + home.string() +
                            "; stop it first, or give this one its own AGENTRY_HOME",
                        {{"pid", holder}});
    }
    if (!told && on_wait) on_wait(holder);
    told = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

DaemonLock::DaemonLock(DaemonLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

DaemonLock& DaemonLock::operator=(DaemonLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

DaemonLock::~DaemonLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

core::Result<DaemonLock> hold_home_without_daemon(const std::filesystem::path& home, const std::string& why) {
  auto lock = DaemonLock::acquire(home, std::chrono::milliseconds(0), {});
  if (lock || lock.error().code != core::ErrorCode::conflict) return lock;
  const auto* pid = lock.error().details.if_contains("pid");
  const std::string holder = pid && pid->is_int64() ? " (pid " + std::to_string(pid->as_int64()) + ")" : std::string();
  return core::fail(core::ErrorCode::conflict, "a daemon" + holder + " serves " + home.string() + ": " + why,
                    lock.error().details);
}

}  // namespace agentry::cli

#pragma once
// One daemon per home. `agentry serve` holds an exclusive lock on <home>/daemon.lock for
// its whole life, from before startup reconciliation until its runs are stopped or
// detached. Without it, a daemon started while the previous one is still stopping would
// find that one's runs owned by a live process and leave them to nobody, or reconcile a
// run the other is about to detach. The kernel drops the lock when the process dies, even
// by SIGKILL. Embedded CLI processes do not take it: they drive only their own runs.

#include "core/result.hpp"

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>

namespace agentry::cli {

class DaemonLock {
 public:
  /// Takes the lock, waiting up to `wait` for a daemon that is stopping to let go;
  /// `on_wait` is told the holder's pid once, when there is a wait. CONFLICT when the
  /// holder does not let go in time.
  static core::Result<DaemonLock> acquire(const std::filesystem::path& home, std::chrono::milliseconds wait,
                                          const std::function<void(long holder_pid)>& on_wait);

  DaemonLock(DaemonLock&& other) noexcept;
  DaemonLock& operator=(DaemonLock&& other) noexcept;
  DaemonLock(const DaemonLock&) = delete;
  DaemonLock& operator=(const DaemonLock&) = delete;
  ~DaemonLock();

 private:
  explicit DaemonLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

/// For the embedded commands that write a home's store behind any daemon's back (`store
/// copy`, `import agent-runner`): the home's lock, taken at once and held while they
/// write, so no daemon serves the home meanwhile. CONFLICT naming the serving daemon's
/// pid and `why` ("stop it before importing, ...") when one does.
core::Result<DaemonLock> hold_home_without_daemon(const std::filesystem::path& home, const std::string& why);

}  // namespace agentry::cli

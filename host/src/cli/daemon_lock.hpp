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

}  // namespace agentry::cli

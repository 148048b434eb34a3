#include "sqlite_store/background_checkpoints.hpp"

#include "core/log.hpp"

namespace agentry::sqlite_store {
namespace {

Connection open_checkpointer(const std::filesystem::path& path, bool synchronous_full) {
  auto c = Connection::open(path, false);
  c.exec(synchronous_full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL");
  return c;
}

}  // namespace

BackgroundCheckpoints::BackgroundCheckpoints(const std::filesystem::path& path, bool synchronous_full)
    : connection_(open_checkpointer(path, synchronous_full)), thread_([this] { run(); }) {}

BackgroundCheckpoints::~BackgroundCheckpoints() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void BackgroundCheckpoints::committed(int frames, const std::function<void()>& checkpoint_here) {
  if (frames >= 2 * writer_copies_at) {
    std::lock_guard copying(copying_);
    checkpoint_here();
    return;
  }
  if (frames >= writer_copies_at) {
    std::unique_lock copying(copying_, std::try_to_lock);
    if (copying) checkpoint_here();
    return;
  }
  if (frames < woken_at_) woken_at_ = 0;  // the log started over
  if (frames - woken_at_ < wake_every) return;
  woken_at_ = frames;
  {
    std::lock_guard lock(mutex_);
    pending_ = true;
  }
  wake_.notify_one();
}

void BackgroundCheckpoints::run() {
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return pending_ || stopping_; });
      if (stopping_) return;
      pending_ = false;
    }
    try {
      std::lock_guard copying(copying_);
      connection_.checkpoint();
    } catch (const StoreError& e) {
      // The writer copies the log itself at its limit: a failure here only costs time.
      core::log_warn("background checkpoint failed", {{"error", e.what()}});
    }
  }
}

}  // namespace agentry::sqlite_store

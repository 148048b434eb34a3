#pragma once
// Checkpoints of the write-ahead log off the writer's thread. Every page a commit writes
// to the log is copied into the database later (a checkpoint), and SQLite's automatic
// checkpoint does that on the committing thread once the log holds 1,000 frames: on the
// store's one writer, which every write waits for, a streaming run's commits spent about
// a seventh of that thread copying pages. Here a thread of its own, with a connection of
// its own, copies the log as it grows, and the writer copies only what that thread has
// not when the log reaches 1,000 frames. A log can start over only once all of it is in
// the database, and the writer's own copy makes sure that happens, so under a steady
// stream of commits the log stays about as short as SQLite's automatic checkpoint keeps
// it. The writer skips its copy while the thread is copying (their copies would only
// take turns), unless the log has reached twice its limit: then it waits for the thread
// and copies the rest, so the log never grows past that.

#include "sqlite_store/sqlite.hpp"

#include <condition_variable>
#include <filesystem>
#include <functional>
#include <mutex>
#include <thread>

namespace agentry::sqlite_store {

class BackgroundCheckpoints {
 public:
  /// The log's frames from which the writer copies the rest itself (SQLite's default),
  /// unless the thread is copying; from twice as many, it waits for the thread.
  static constexpr int writer_copies_at = 1000;
  /// The frames the log grows by between two wake-ups of the checkpoint thread.
  static constexpr int wake_every = 256;

  /// A connection of its own to `path` (synchronous as the store's, so a checkpoint
  /// syncs the database as the writer's would).
  BackgroundCheckpoints(const std::filesystem::path& path, bool synchronous_full);
  ~BackgroundCheckpoints();
  BackgroundCheckpoints(const BackgroundCheckpoints&) = delete;
  BackgroundCheckpoints& operator=(const BackgroundCheckpoints&) = delete;

  /// [the writer, after each commit: Connection::on_wal_commit] Copies the log with
  /// `checkpoint_here` when it must; wakes the checkpoint thread as the log grows.
  void committed(int frames, const std::function<void()>& checkpoint_here);

 private:
  void run();

  Connection connection_;
  std::mutex copying_;  // held by whoever copies the log
  int woken_at_ = 0;    // the log's frames at the last wake-up (the writer's alone)
  std::mutex mutex_;
  std::condition_variable wake_;
  bool pending_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace agentry::sqlite_store

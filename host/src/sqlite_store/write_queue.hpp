#pragma once
// The single writer. Every write in the process goes through here: one thread,
// one connection, and group commit: jobs that arrive while a transaction is being
// written are batched into the next one, so N concurrent writers pay for one fsync.
// Each job runs inside its own SAVEPOINT, so a failing job rolls back alone and its
// neighbours in the batch still commit. A job's result is delivered only after its
// transaction has committed: durable before visible.

#include "core/result.hpp"
#include "sqlite_store/sqlite.hpp"
#include "sqlite_store/sqlite_transaction.hpp"
#include "store/store.hpp"

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

namespace agentry::sqlite_store {

using store::WriteJob;

class WriteQueue {
 public:
  /// Takes ownership of the writer connection and starts the writer thread.
  explicit WriteQueue(Connection connection, std::size_t max_batch = 512);
  ~WriteQueue();
  WriteQueue(const WriteQueue&) = delete;
  WriteQueue& operator=(const WriteQueue&) = delete;

  /// Queues a job; the future resolves after the job's transaction commits (or fails).
  std::future<core::Result<void>> submit(WriteJob job);

  /// Installs the writer connection's timeline listener (Connection::set_timeline_listener).
  void set_timeline_listener(store::TimelineListener listener);

  store::WriteStats stats() const;

 private:
  struct Pending {
    WriteJob job;
    std::promise<core::Result<void>> done;
  };

  void run();
  void write_batch(std::deque<Pending>& batch);

  Connection connection_;
  SqliteTransaction transaction_{connection_};
  std::size_t max_batch_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Pending> pending_;
  bool stopping_ = false;
  store::WriteStats stats_;
  std::thread thread_;
};

}  // namespace agentry::sqlite_store

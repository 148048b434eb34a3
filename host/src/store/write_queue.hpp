#pragma once
// The single writer. Every write in the process goes through here: one thread,
// one connection, and group commit: jobs that arrive while a transaction is being
// written are batched into the next one, so N concurrent writers pay for one fsync.
// Each job runs inside its own SAVEPOINT, so a failing job rolls back alone and its
// neighbours in the batch still commit. A job's result is delivered only after its
// transaction has committed: durable before visible.

#include "core/result.hpp"
#include "store/sqlite.hpp"

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

namespace agentry::store {

using WriteJob = std::function<core::Result<void>(Connection&)>;

struct WriteQueueStats {
  std::uint64_t jobs = 0;
  std::uint64_t transactions = 0;
};

class WriteQueue {
 public:
  /// Takes ownership of the writer connection and starts the writer thread.
  explicit WriteQueue(Connection connection, std::size_t max_batch = 512);
  ~WriteQueue();
  WriteQueue(const WriteQueue&) = delete;
  WriteQueue& operator=(const WriteQueue&) = delete;

  /// Queues a job; the future resolves after the job's transaction commits (or fails).
  std::future<core::Result<void>> submit(WriteJob job);

  /// Runs `fn` on the writer inside a transaction and waits for the commit.
  /// `fn` runs on the writer thread: it must not call back into the queue.
  template <class T, class F>
  core::Result<T> execute(F&& fn) {
    std::optional<core::Result<T>> out;
    auto done = submit([&](Connection& c) -> core::Result<void> {
      out.emplace(guard([&]() -> core::Result<T> { return fn(c); }));
      if (!out->ok()) return out->failure();
      return core::ok();
    });
    auto committed = done.get();
    if (!committed.ok()) return committed.failure();
    return std::move(*out);
  }

  /// Installs the writer connection's timeline listener (Connection::set_timeline_listener).
  void set_timeline_listener(Connection::TimelineListener listener);

  WriteQueueStats stats() const;

 private:
  struct Pending {
    WriteJob job;
    std::promise<core::Result<void>> done;
  };

  void run();
  void write_batch(std::deque<Pending>& batch);

  Connection connection_;
  std::size_t max_batch_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Pending> pending_;
  bool stopping_ = false;
  WriteQueueStats stats_;
  std::thread thread_;
};

}  // namespace agentry::store

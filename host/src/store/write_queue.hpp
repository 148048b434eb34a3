#pragma once
// The single writer of a store, whatever the engine. Every write in the process goes
// through here: one thread, one connection, and group commit: jobs that arrive while a
// transaction is being written are batched into the next one, so N concurrent writers
// pay for one commit. Each job runs inside its own savepoint, so a failing job rolls
// back alone and its neighbours in the batch still commit. A job's result is delivered
// only after its transaction has committed: durable before visible.
//
// The engine plugs in as a BatchWriter: the statements that open, mark and close a
// transaction on its connection, and the Transaction its jobs see.

#include "core/result.hpp"
#include "store/commit_actions.hpp"
#include "store/store.hpp"

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace agentry::store {

/// One engine's side of group commit, used by the writer thread only.
class BatchWriter {
 public:
  virtual ~BatchWriter() = default;

  virtual void begin() = 0;
  /// Around each job: a savepoint, released when the job succeeds or rolled back to
  /// (then released) when it fails.
  virtual void savepoint() = 0;
  virtual void release() = 0;
  virtual void rollback_to_savepoint() = 0;
  virtual void commit() = 0;
  /// Ends a failed transaction; must not throw (it is already failing).
  virtual void rollback() noexcept = 0;
  /// How many times a batch is run again as a whole when a job or the commit fails with
  /// a StoreError of kind retry (another writer won a race). SQLite has one writer: 0.
  virtual int max_retries() const { return 0; }

  virtual Transaction& transaction() = 0;

  /// What the jobs asked for once their transaction commits (the writer connection's).
  virtual CommitActions& commit_actions() = 0;
};

class WriteQueue {
 public:
  /// Takes ownership of the engine's writer and starts the writer thread.
  explicit WriteQueue(std::unique_ptr<BatchWriter> writer, std::size_t max_batch = 512);
  ~WriteQueue();
  WriteQueue(const WriteQueue&) = delete;
  WriteQueue& operator=(const WriteQueue&) = delete;

  /// Queues a job; the future resolves after the job's transaction commits (or fails).
  std::future<core::Result<void>> submit(WriteJob job);
  /// Queues a job; `done` is called on the writer thread after its transaction commits
  /// (or fails), so it must only hand the result on (post it), never wait. With `bulk`,
  /// in the bulk lane (store.hpp).
  void submit(WriteJob job, WriteDone done, std::optional<BulkWrite> bulk = std::nullopt);

  /// The bulk weight a transaction takes (at least one bulk job): a few ms of writing.
  static constexpr std::size_t bulk_weight_per_transaction = 8192;

  /// Installs the one listener every committed timeline append is told of.
  void set_timeline_listener(TimelineListener listener);

  WriteStats stats() const;

 private:
  struct Pending {
    WriteJob job;
    WriteDone done;
    std::size_t weight = 0;
  };

  void run();
  void write_batch(std::deque<Pending>& batch);
  /// Runs the batch in one transaction; fills `results` (one per job). Throws when the
  /// transaction itself fails.
  void try_batch(std::deque<Pending>& batch, std::vector<core::Result<void>>& results);
  void publish_commit();

  std::unique_ptr<BatchWriter> writer_;
  std::size_t max_batch_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Pending> pending_;
  std::deque<Pending> bulk_;
  bool stopping_ = false;
  WriteStats stats_;
  std::thread thread_;
};

}  // namespace agentry::store

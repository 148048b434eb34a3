#pragma once
// PostgreSQL's side of the store's group commit (store/write_queue.hpp). A batch is one
// REPEATABLE READ transaction: a job that read a row another member changed meanwhile
// fails with a serialization failure instead of overwriting it, and the queue runs the
// batch again on a fresh snapshot. A lost connection is re-established before the next
// batch, so the daemon recovers when the server returns.

#include "pg_store/pg.hpp"
#include "pg_store/pg_transaction.hpp"
#include "store/write_queue.hpp"

#include <chrono>

namespace agentry::pg_store {

class BatchWriter final : public store::BatchWriter {
 public:
  explicit BatchWriter(Connection connection) : connection_(std::move(connection)) {}

  void begin() override;
  void savepoint() override { connection_.exec("SAVEPOINT job"); }
  void release() override { connection_.exec("RELEASE SAVEPOINT job"); }
  void rollback_to_savepoint() override { connection_.exec("ROLLBACK TO SAVEPOINT job"); }
  /// Tells the other processes "changed" with the commit, at most every 50 ms: a NOTIFY
  /// takes a lock at commit that every notifying transaction on the server shares.
  void commit() override;
  void rollback() noexcept override;
  int max_retries() const override { return 8; }

  store::Transaction& transaction() override { return transaction_; }

  store::CommitActions& commit_actions() override { return connection_.commit_actions(); }

 private:
  Connection connection_;
  PgTransaction transaction_{connection_};
  std::chrono::steady_clock::time_point last_changed_{};
};

}  // namespace agentry::pg_store

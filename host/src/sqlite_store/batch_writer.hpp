#pragma once
// SQLite's side of the store's group commit (store/write_queue.hpp): the writer
// connection, BEGIN IMMEDIATE so the write lock is taken up front, and a savepoint per job.
// The statements that frame jobs come from the connection's statement cache: a burst of
// small jobs would otherwise parse four of them per job.

#include "sqlite_store/sqlite.hpp"
#include "sqlite_store/sqlite_transaction.hpp"
#include "store/write_queue.hpp"

namespace agentry::sqlite_store {

class BatchWriter final : public store::BatchWriter {
 public:
  explicit BatchWriter(Connection connection) : connection_(std::move(connection)) {}

  void begin() override { connection_.run("BEGIN IMMEDIATE"); }
  void savepoint() override { connection_.run("SAVEPOINT job"); }
  void release() override { connection_.run("RELEASE job"); }
  void rollback_to_savepoint() override { connection_.run("ROLLBACK TO job"); }
  void commit() override { connection_.run("COMMIT"); }
  void rollback() noexcept override {
    try {
      connection_.exec("ROLLBACK");
    } catch (const StoreError&) {
      // Nothing to roll back: BEGIN itself failed.
    }
  }

  store::Transaction& transaction() override { return transaction_; }

  store::CommitActions& commit_actions() override { return connection_.commit_actions(); }

 private:
  Connection connection_;
  SqliteTransaction transaction_{connection_};
};

}  // namespace agentry::sqlite_store

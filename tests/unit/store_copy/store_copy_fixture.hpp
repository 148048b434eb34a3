#pragma once
// A SQLite home written through the real SqliteStore and repositories, with a row in
// every table, and a fresh PostgreSQL database to copy it into; raw SQL on both sides to
// compare what arrived.

#include "pg_store/pg.hpp"
#include "sqlite_store/sqlite.hpp"
#include "sqlite_store/sqlite_store.hpp"
#include "store_copy/store_copy.hpp"
#include "store_test_support.hpp"
#include "support/postgres_cluster.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace agentry::store_copy {

/// Every table a home has (the SQLite store's schema, internal tables aside).
inline const std::vector<std::string> every_table{
    "attachments",     "attempts",  "audit_events",         "dependencies", "hook_audits",
    "notification_outbox", "parent_notifications", "project_trust", "queued_messages", "run_starts",
    "run_tokens",      "run_usage", "runs",      "schedules", "sessions",             "tasks",        "timeline_batches",
    "trigger_deliveries"};

using Row = std::vector<std::optional<std::string>>;

class PgStoreCopy : public test::PostgresTest {
 protected:
  void SetUp() override;
  void TearDown() override;

  std::filesystem::path source() const { return home_.path() / "agentry.db"; }
  /// Writes `runs` runs through the store, each with rows in every table and
  /// `events` timeline events, then closes the store.
  void populate(int runs = 3, int events = 4);
  core::Result<CopyReport> copy(Progress progress = {});

  /// Every row of `table` in SQLite, all columns as text (NULL as nullopt), sorted.
  std::vector<Row> sqlite_rows(const std::string& table);
  /// The same columns of the same table in PostgreSQL, booleans as 0/1, sorted.
  std::vector<Row> pg_rows(const std::string& table);
  /// SQL on the source file, with foreign keys off (as a damaged file might be).
  void sqlite_exec(const std::string& sql);
  std::int64_t sqlite_int(const std::string& sql);
  pg_store::Connection& pg();
  std::int64_t pg_int(const std::string& sql);
  /// Migrates the target, as a copy would, before the test changes it.
  void migrate_target();
  /// The total of rows in every table of the target.
  std::int64_t pg_rows_everywhere();

 private:
  std::vector<std::string> sqlite_columns(const std::string& table);
  sqlite_store::testing::TempDir home_;
  std::optional<pg_store::Connection> pg_;
};

}  // namespace agentry::store_copy

#pragma once
// `agentry store copy` (docs/scale-out.md): the whole state of a SQLite home, every table
// and every row, into an empty PostgreSQL database, so that daemons can serve its runs
// from there. The target is migrated first, then filled in ONE PostgreSQL transaction
// from one SQLite snapshot: a copy that fails, or whose row counts do not match at the
// end, leaves the target without a row. Attachment blobs are files beside the database
// (AGENTRY_BLOB_DIR, by default <AGENTRY_HOME>/blobs) and are not copied.

#include "core/result.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace agentry::store_copy {

/// Told of a table's rows as they go (`done` once the table is complete).
using Progress = std::function<void(const std::string& table, std::int64_t rows, bool done)>;

struct CopyOptions {
  std::filesystem::path source;  // the SQLite file, <AGENTRY_HOME>/agentry.db
  std::string target_uri;        // a PostgreSQL URI
  Progress progress;             // may be empty
};

struct TableCount {
  std::string table;
  std::int64_t source_rows = 0;  // in the snapshot that was copied
  std::int64_t target_rows = 0;  // in the target's transaction, before it commits
};

struct CopyReport {
  std::string source;
  std::string target;      // the URI with its password redacted
  int schema_version = 0;  // the target's, once migrated
  std::vector<TableCount> tables;  // in the order copied: parents before children
  std::chrono::milliseconds elapsed{0};
  /// False when counts differ: the copy was rolled back and the target has no row.
  bool committed = false;

  std::int64_t rows() const;
  /// The first table whose counts differ, or nullptr.
  const TableCount* mismatch() const;
};

/// Copies `options.source` into `options.target_uri`. Refusals (exit 3 in the CLI): NOT_FOUND
/// when the source does not exist; VALIDATION_FAILED for a URI libpq cannot parse or a value
/// the target cannot hold; CONFLICT when a table of the target already holds rows, when the
/// source's schema is not this agentry's, or when the schemas do not match table for table.
/// Failures: UNAVAILABLE when the target cannot be reached, INTERNAL when a database fails.
core::Result<CopyReport> copy_into_postgresql(const CopyOptions& options);

}  // namespace agentry::store_copy

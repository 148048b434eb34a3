#pragma once
// What a copy will do, worked out from the two schemas themselves rather than from a list
// kept here: the tables of the SQLite file (sqlite_master), each matched column for column
// with the PostgreSQL table of the same name (information_schema), in an order where every
// table comes after the tables its foreign keys name (pg_constraint). So a migration
// added to both stores is copied without a change here, and one added to only one store
// is an error naming what does not match.

#include "core/result.hpp"
#include "pg_store/pg.hpp"
#include "sqlite_store/sqlite.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace agentry::store_copy {

/// One column of the target and where its values come from.
struct ColumnPlan {
  std::string name;
  /// The SQLite expression read for it: the quoted column of the same name, or `rowid`
  /// for an identity column SQLite has no column for (queued_messages.seq stands for
  /// SQLite's rowid order).
  std::string source;
  /// A PostgreSQL boolean: SQLite holds it as 0/1.
  bool boolean = false;
  /// An identity column: its sequence must move past the copied values.
  bool identity = false;
};

struct TablePlan {
  std::string name;
  std::vector<ColumnPlan> columns;
};

/// Bookkeeping tables of either store, never copied: SQLite's own (sqlite_*, among them
/// sqlite_sequence), PostgreSQL's record of applied migrations, and the members.
bool is_internal_table(std::string_view name);

/// `name` as a double-quoted SQL identifier (valid in both dialects).
std::string quote_identifier(std::string_view name);

/// Every table to copy, parents before children. CONFLICT, naming the table or column,
/// when the schemas do not match; CONFLICT too for a cycle of foreign keys.
core::Result<std::vector<TablePlan>> plan_copy(sqlite_store::Connection& source, pg_store::Connection& target);

/// `tables` ordered so that each comes after those it references (`references` holds
/// child, parent pairs; a table referencing itself is fine); ties keep `tables`' order.
/// CONFLICT when the references form a cycle.
core::Result<std::vector<std::string>> dependency_order(
    const std::vector<std::string>& tables, const std::vector<std::pair<std::string, std::string>>& references);

}  // namespace agentry::store_copy

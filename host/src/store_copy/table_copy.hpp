#pragma once
// One table's rows, from the SQLite snapshot the caller holds into the PostgreSQL
// transaction the caller holds, streamed: one SELECT stepped row by row on one side, one
// COPY ... FROM STDIN fed a buffer at a time on the other, so memory stays flat whatever
// the table's size.

#include "core/result.hpp"
#include "pg_store/pg.hpp"
#include "sqlite_store/sqlite.hpp"
#include "store_copy/copy_plan.hpp"
#include "store_copy/store_copy.hpp"

#include <cstdint>

namespace agentry::store_copy {

/// Copies the table; returns the rows PostgreSQL stored. VALIDATION_FAILED for a boolean
/// column holding anything but 0 or 1; database failures throw store::StoreError.
core::Result<std::int64_t> copy_table(sqlite_store::Connection& source, pg_store::Connection& target,
                                      const TablePlan& plan, const Progress& progress);

/// Moves the sequence of each identity column of the table past every id it has now and
/// every id SQLite's AUTOINCREMENT handed out (sqlite_sequence remembers deleted rows'
/// ids too), so ids PostgreSQL hands out next never repeat one.
void advance_identities(sqlite_store::Connection& source, pg_store::Connection& target, const TablePlan& plan);

}  // namespace agentry::store_copy

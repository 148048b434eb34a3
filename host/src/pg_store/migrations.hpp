#pragma once
// The PostgreSQL schema as numbered migrations, each applied in its own transaction
// under one advisory lock and recorded in schema_migrations, so several daemons starting
// against one database apply each migration exactly once. A database whose schema is
// newer than this build is refused, never touched.

#include "core/result.hpp"
#include "pg_store/pg.hpp"

namespace agentry::pg_store {

/// The schema version this build writes.
int latest_schema_version();

/// The highest version recorded in schema_migrations; 0 on a database never migrated.
int schema_version(Connection& connection);

/// Brings the database to `target` (default latest_schema_version()). Must not be called
/// inside a transaction: it opens and commits its own.
core::Result<void> migrate(Connection& connection, int target = 0);

}  // namespace agentry::pg_store

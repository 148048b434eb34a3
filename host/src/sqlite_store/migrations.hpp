#pragma once
// Numbered schema migrations, applied in order at startup. The schema version lives
// in PRAGMA user_version; a database from a newer agentry is refused, never touched.

#include "core/result.hpp"
#include "sqlite_store/sqlite.hpp"

#include <filesystem>

namespace agentry::sqlite_store {

/// The schema version this build writes.
int latest_schema_version();

/// The version the database records (PRAGMA user_version); 0 for a new, empty file.
int schema_version(Connection& connection);

/// Brings `connection` to `target` (default latest_schema_version()), each migration in
/// its own transaction. Safe when several processes open the same database at once.
core::Result<void> migrate(Connection& connection, const std::filesystem::path& path_for_messages, int target = 0);

}  // namespace agentry::sqlite_store

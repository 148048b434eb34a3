#pragma once
// The composition root's one choice of store implementation. Everything above
// store/ sees only store::Store; this is the only code that names an engine.

#include "cli/paths.hpp"
#include "core/result.hpp"
#include "core/settings.hpp"
#include "store/store.hpp"

#include <memory>
#include <string>

namespace agentry::cli {

/// The store settings.store names (AGENTRY_STORE / --store): a PostgreSQL database,
/// else the embedded SQLite file at paths.database(); created and migrated if needed.
core::Result<std::unique_ptr<store::Store>> open_store(const Paths& paths, const core::Settings& settings);

/// What `agentry store migrate` did to the schema of one store.
struct SchemaMigration {
  std::string engine;  // "sqlite" or "postgresql"
  std::string store;   // the file, or the URI with its password redacted
  int from = 0;        // the version found (0: a new store)
  int to = 0;          // the version left
  int latest = 0;      // this agentry's
};

/// What `agentry doctor` found in the store open_store() would open, read without
/// creating or migrating it (opening a store::Store would do both).
struct StoreInspection {
  std::string engine;       // "sqlite" or "postgresql"
  std::string store;        // the file, or the URI with its password redacted
  bool exists = false;      // SQLite: the file exists (else it is made at first use)
  int version = 0;          // the schema version found
  int latest = 0;           // this agentry's
  /// SQLite: "ok", or the first problems PRAGMA integrity_check found. PostgreSQL checks
  /// its own pages: empty.
  std::string integrity;
};

/// Opens the store read-only and reads its schema version and integrity. Fails when it
/// cannot be opened (a PostgreSQL server refusing or unreachable, an unreadable file).
core::Result<StoreInspection> inspect_store(const Paths& paths, const core::Settings& settings);

/// Brings the store open_store() would open to this agentry's schema version, with the
/// same migrations (and locks) a daemon's start applies, and says from which version.
core::Result<SchemaMigration> migrate_store(const Paths& paths, const core::Settings& settings);

}  // namespace agentry::cli

#include "cli/open_store.hpp"

#include "pg_store/migrations.hpp"
#include "pg_store/pg_store.hpp"
#include "sqlite_store/migrations.hpp"
#include "sqlite_store/sqlite_store.hpp"

#include <system_error>

namespace agentry::cli {
namespace {

core::Result<SchemaMigration> migrate_postgresql(const std::string& uri) {
  if (auto valid = pg_store::check_uri(uri); !valid) return valid.failure();
  auto connection = pg_store::Connection::open(uri);
  if (!connection) return connection.failure();
  return store::guard([&]() -> core::Result<SchemaMigration> {
    SchemaMigration done{"postgresql", connection->target(), pg_store::schema_version(*connection), 0,
                         pg_store::latest_schema_version()};
    if (auto migrated = pg_store::migrate(*connection); !migrated) return migrated.failure();
    done.to = pg_store::schema_version(*connection);
    return done;
  });
}

core::Result<SchemaMigration> migrate_sqlite(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) {
    return core::fail(core::ErrorCode::internal,
                      "cannot create directory " + path.parent_path().string() + ": " + ec.message());
  }
  return store::guard([&]() -> core::Result<SchemaMigration> {
    auto connection = sqlite_store::Connection::open(path, /*read_only=*/false);
    SchemaMigration done{"sqlite", path.string(), sqlite_store::schema_version(connection), 0,
                         sqlite_store::latest_schema_version()};
    if (auto migrated = sqlite_store::migrate(connection, path); !migrated) return migrated.failure();
    done.to = sqlite_store::schema_version(connection);
    return done;
  });
}

core::Result<StoreInspection> inspect_postgresql(const std::string& uri) {
  if (auto valid = pg_store::check_uri(uri); !valid) return valid.failure();
  auto connection = pg_store::Connection::open(uri);
  if (!connection) return connection.failure();
  return store::guard([&]() -> core::Result<StoreInspection> {
    return StoreInspection{"postgresql", connection->target(), true, pg_store::schema_version(*connection),
                           pg_store::latest_schema_version(), ""};
  });
}

core::Result<StoreInspection> inspect_sqlite(const std::filesystem::path& path) {
  StoreInspection found{"sqlite", path.string(), false, 0, sqlite_store::latest_schema_version(), ""};
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return found;
  found.exists = true;
  return store::guard([&]() -> core::Result<StoreInspection> {
    auto connection = sqlite_store::Connection::open(path, /*read_only=*/true);
    found.version = sqlite_store::schema_version(connection);
    // At most 20 problems: enough to say what is wrong, bounded on a badly damaged file.
    auto check = connection.prepare("PRAGMA integrity_check(20)");
    while (check.step()) found.integrity += (found.integrity.empty() ? "" : "; ") + check.column_text(0);
    return found;
  });
}

}  // namespace

core::Result<StoreInspection> inspect_store(const Paths& paths, const core::Settings& settings) {
  return settings.store.empty() ? inspect_sqlite(paths.database()) : inspect_postgresql(settings.store);
}

core::Result<std::unique_ptr<store::Store>> open_store(const Paths& paths, const core::Settings& settings) {
  if (!settings.store.empty()) {
    auto shared = pg_store::PgStore::open(settings.store);
    if (!shared) return shared.failure();
    return std::unique_ptr<store::Store>(std::move(*shared));
  }
  auto sqlite = sqlite_store::SqliteStore::open(paths.database());
  if (!sqlite) return sqlite.failure();
  return std::unique_ptr<store::Store>(std::move(*sqlite));
}

core::Result<SchemaMigration> migrate_store(const Paths& paths, const core::Settings& settings) {
  return settings.store.empty() ? migrate_sqlite(paths.database()) : migrate_postgresql(settings.store);
}

}  // namespace agentry::cli

#include "cli/open_store.hpp"

#include "pg_store/pg_store.hpp"
#include "sqlite_store/sqlite_store.hpp"

namespace agentry::cli {

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

}  // namespace agentry::cli

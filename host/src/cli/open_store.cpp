#include "cli/open_store.hpp"

#include "sqlite_store/sqlite_store.hpp"

namespace agentry::cli {

core::Result<std::unique_ptr<store::Store>> open_store(const Paths& paths) {
  auto sqlite = sqlite_store::SqliteStore::open(paths.database());
  if (!sqlite) return sqlite.failure();
  return std::unique_ptr<store::Store>(std::move(*sqlite));
}

}  // namespace agentry::cli

#pragma once
// The composition root's one choice of store implementation. Everything above
// store/ sees only store::Store; this is the only code that names an engine.

#include "cli/paths.hpp"
#include "core/result.hpp"
#include "core/settings.hpp"
#include "store/store.hpp"

#include <memory>

namespace agentry::cli {

/// The store settings.store names (AGENTRY_STORE / --store): a PostgreSQL database,
/// else the embedded SQLite file at paths.database(); created and migrated if needed.
core::Result<std::unique_ptr<store::Store>> open_store(const Paths& paths, const core::Settings& settings);

}  // namespace agentry::cli

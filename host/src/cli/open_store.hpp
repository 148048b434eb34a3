#pragma once
// The composition root's one choice of store implementation. Everything above
// store/ sees only store::Store; this is the only code that names an engine.

#include "cli/paths.hpp"
#include "core/result.hpp"
#include "store/store.hpp"

#include <memory>

namespace agentry::cli {

/// The embedded SQLite file at paths.database(), created and migrated if needed.
core::Result<std::unique_ptr<store::Store>> open_store(const Paths& paths);

}  // namespace agentry::cli

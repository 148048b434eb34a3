#pragma once
// Writes one ImportedRun into agentry's store: its attachment bytes first (blobs are
// content-addressed, so a run that then fails to write leaves only blobs no row names,
// which the daemon's startup sweep removes), then every row of the run in ONE
// transaction through the store interface, so SQLite and PostgreSQL get the same.
// Never overwrites: a run id that exists is either this same manifest imported before
// (skipped) or refused.

#include "core/result.hpp"
#include "store/store.hpp"
#include "store_import/agent_runner/imported_run.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace agentry::store_import::agent_runner {

enum class WriteOutcome { imported, already_imported };

/// CONFLICT (naming the run) when the id exists otherwise; already_imported when it was
/// imported from the same manifest as it is now. With `dry_run`, stops after that check.
/// `blob_dir` is where attachment contents live (AGENTRY_BLOB_DIR, else <home>/blobs).
/// Store failures come back as they are (INTERNAL, UNAVAILABLE).
core::Result<WriteOutcome> write_imported_run(store::Store& store, const std::filesystem::path& blob_dir,
                                              ImportedRun& run, bool dry_run);

}  // namespace agentry::store_import::agent_runner

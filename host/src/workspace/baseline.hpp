#pragma once
// A run's baseline: the state of its work tree when it first started, user's uncommitted
// changes and untracked (not ignored) files included, written as a commit under the
// private ref refs/agentry/runs/<runId>/base (parent: HEAD, when there is one). The
// user's index, HEAD and files are never modified: the tree is built in a separate
// in-memory index; only new objects are written to the object database, as
// `git stash create` would.

#include "core/result.hpp"

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

namespace agentry::workspace {

struct Baseline {
  std::string ref;     // refs/agentry/runs/<runId>/base
  std::string commit;  // hex id
  std::string tree;    // hex id
  bool created = false;  // false: it already existed and was kept
};

/// Records the baseline of `run_id` unless it exists. nullopt when `cwd` is not in a
/// git work tree (nothing to record). A work tree too large to snapshot gets no
/// baseline, never a partial one (UNAVAILABLE, details.reason "deadline": over `budget`;
/// "files": over 20,000 changed or untracked files; "bytes": over 512 MiB of them), so a
/// home directory that is a dotfiles repository is not copied into its object database.
core::Result<std::optional<Baseline>> record_baseline(const std::filesystem::path& cwd, const std::string& run_id,
                                                      std::chrono::milliseconds budget = std::chrono::seconds(10));

/// Deletes the baseline ref of a run (when the run is deleted); quiet when there is none.
void remove_baseline(const std::filesystem::path& cwd, const std::string& run_id);

}  // namespace agentry::workspace

#pragma once
// Diffs of a run's git work tree (docs/api.md, "Workspace diffs"):
//  - working-tree: HEAD against the index and work tree (staged, unstaged, deleted,
//    renamed, copied, untracked);
//  - branch: two explicit refs, through their merge base (base...head) or direct
//    (base..head); a ref that does not resolve is NOT_FOUND, never guessed;
//  - run: the run's baseline (baseline.hpp) against the work tree: what the run changed,
//    exact even when the tree was dirty when it started.
// Everything is bounded (Limits): a truncated answer carries whole file patches only.
// A work tree file the file and raw routes would not read (confinement.hpp: a hard
// link, a symlink leading out) is listed, but its content is neither shown nor counted.

#include "core/result.hpp"
#include "workspace/limits.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace agentry::workspace {

enum class DiffMode { working_tree, branch, run };

struct DiffRequest {
  DiffMode mode = DiffMode::working_tree;
  std::string base;          // branch mode
  std::string head = "HEAD";  // branch mode
  bool merge_base = true;    // branch mode: comparison=merge-base (true) or direct
  std::string run_id;        // run mode
  bool with_patch = true;    // false: the file list and totals only (--stat)
};

struct DiffFile {
  std::string path;
  std::optional<std::string> old_path;  // renames and copies
  std::string status;  // added, deleted, modified, renamed, copied, untracked, typechange, conflicted, unreadable
  std::optional<std::size_t> additions;  // null for binary or unpreviewable entries
  std::optional<std::size_t> deletions;
  bool binary = false;
  std::optional<std::string> omitted_reason;  // why its content is left out: "hardlink", "outside"
};

struct DiffTotals {
  std::size_t files = 0;
  std::size_t additions = 0;
  std::size_t deletions = 0;
};

struct DiffResult {
  std::string mode;
  std::string repo_root;
  std::string base_ref, head_ref;                  // as asked (branch), or what was compared
  std::string base_commit, head_commit, merge_base;  // hex ids, "" when not applicable
  std::vector<DiffFile> files;
  std::string patch;
  DiffTotals totals;  // of the files listed
  bool truncated = false;
  std::string truncated_reason;  // "patch_bytes", "files", "deadline"
};

/// The private ref that holds a run's baseline commit.
std::string baseline_ref(const std::string& run_id);

core::Result<DiffResult> diff_workspace(const std::filesystem::path& cwd, const DiffRequest& request,
                                        const Limits& limits);

/// The run's changes since its baseline as totals, or nullopt when it has none (no
/// baseline, or its cwd is not in a git work tree).
std::optional<DiffTotals> run_diffstat(const std::filesystem::path& cwd, const std::string& run_id,
                                       const Limits& limits);

boost::json::object to_json(const DiffResult& result);
boost::json::object to_json(const DiffTotals& totals);

}  // namespace agentry::workspace

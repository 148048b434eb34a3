#pragma once
// Per-run git worktrees (the `git-worktree` hook): a new worktree on a new branch
// `agentry/<runId>` from a base revision, so a run works apart from the user's checkout.
// A user's branch is never touched or moved: when `agentry/<runId>` already exists the
// worktree is refused. Removal (when the run is deleted) prunes the worktree and deletes
// the branch only when it still points at the commit it was created at; a branch with
// commits of its own is kept for the user to merge or delete.

#include "core/result.hpp"

#include <filesystem>
#include <string>

namespace agentry::workspace {

struct RunWorktree {
  std::string repo_root;    // the work tree the run was started in
  std::string path;         // the new worktree's root
  std::string cwd;          // the run's cwd inside it (same place relative to the root)
  std::string branch;       // agentry/<runId>
  std::string base_commit;  // hex id the branch was created at
};

/// Creates the worktree of `run_id` under `dir`/<runId> from `base` (a revision:
/// "HEAD", a branch, a tag, a commit id). VALIDATION_FAILED when `cwd` is in no work
/// tree or `base` names nothing; CONFLICT when the branch or the directory exists.
core::Result<RunWorktree> add_run_worktree(const std::filesystem::path& cwd, const std::string& run_id,
                                           const std::string& base, const std::filesystem::path& dir);

/// What removal did: the worktree directory is gone; the branch is deleted when unchanged.
struct WorktreeRemoval {
  bool worktree_removed = false;
  bool branch_deleted = false;
  bool branch_kept = false;  // it has commits of its own
};

/// Prunes the worktree of `run_id` (its directory removed, files and all) and deletes
/// its branch when unchanged. Quiet when it is already gone.
core::Result<WorktreeRemoval> remove_run_worktree(const RunWorktree& worktree, const std::string& run_id);

}  // namespace agentry::workspace

#pragma once
// agent-runner's form of the git-worktree hook, on libgit2: a worktree at a path the
// definition names, on a branch it names, in a repository it names. Unlike agentry's own
// form (worktree.hpp), the branch may be the user's: an existing branch is checked out as
// it is (never moved or reset), a missing one is created from `from`. When the path
// exists, the collision policy decides: fail; reuse it when it is a worktree of that
// repository on that branch; or replace it when it is a worktree of that repository (or
// an empty directory). Nothing else on disk is touched.
//
// What was created and what was found is returned, so that deleting the run removes
// only what it created (remove_named_worktree).

#include "core/result.hpp"

#include <filesystem>
#include <string>

namespace agentry::workspace {

enum class WorktreeCollision { fail, reuse, replace };

struct NamedWorktreeRequest {
  std::filesystem::path repo;  // absolute: a directory in the repository's work tree
  std::string from;            // the revision a new branch starts at
  std::string branch;          // a local branch name ("feature/x", not "refs/heads/...")
  std::filesystem::path path;  // absolute: where the worktree is
  WorktreeCollision collision = WorktreeCollision::fail;
};

struct NamedWorktree {
  std::string repo_root;    // the repository's main work tree (`repo` may be in a linked one)
  std::string path;         // the worktree's root, canonical
  std::string branch;
  std::string base_commit;  // where the branch pointed when the hook ran
  std::string name;         // its name under <git dir>/worktrees/ (empty when reused and unknown)
  bool created_worktree = false;
  bool created_branch = false;
  bool replaced = false;    // an earlier worktree at `path` was removed first
};

/// Makes sure the worktree exists as asked. VALIDATION_FAILED (details.field: the `with`
/// key) for a relative path, a bad branch name, a `repo` in no work tree or a `from` that
/// names no commit; CONFLICT when the path exists and the policy does not allow it, or
/// the branch is checked out in another worktree.
core::Result<NamedWorktree> ensure_named_worktree(const NamedWorktreeRequest& request);

struct NamedWorktreeRemoval {
  bool worktree_removed = false;
  bool branch_deleted = false;
  bool branch_kept = false;  // created by the run, but it has commits of its own
};

/// When a run that recorded `worktree` is deleted: prunes the worktree (directory and
/// all) only if the run created it and it is still the one at that path, and deletes the
/// branch only if the run created it and it still points at `base_commit`. A reused
/// worktree or branch is never touched. Quiet about what is already gone.
core::Result<NamedWorktreeRemoval> remove_named_worktree(const NamedWorktree& worktree);

}  // namespace agentry::workspace

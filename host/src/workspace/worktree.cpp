#include "workspace/worktree.hpp"

#include "workspace/git_handles.hpp"

namespace fs = std::filesystem;

namespace agentry::workspace {
namespace {

using core::ErrorCode;
using Worktree = git::Handle<git_worktree, &libgit2::Functions::git_worktree_free>;

std::string worktree_name(const std::string& run_id) { return "agentry-" + run_id; }
std::string branch_name(const std::string& run_id) { return "agentry/" + run_id; }

}  // namespace

core::Result<RunWorktree> add_run_worktree(const fs::path& cwd, const std::string& run_id, const std::string& base,
                                           const fs::path& dir) {
  auto repo = git::open_work_tree(cwd);
  if (!repo) return repo.failure();
  RunWorktree out;
  const fs::path root = git::work_tree_root(repo->get());
  out.repo_root = root.string();
  out.branch = branch_name(run_id);
  const std::string revision = base.empty() ? "HEAD" : base;
  git_object* raw_object = nullptr;
  if (libgit2::get().git_revparse_single(&raw_object, repo->get(), revision.c_str()) < 0)
    return core::fail(ErrorCode::validation, "the base '" + revision + "' names no commit in " + root.string() + ": " +
                                                 git::last_error(),
                      {{"base", revision}});
  git::Object object(raw_object);
  git_object* peeled_raw = nullptr;
  if (libgit2::get().git_object_peel(&peeled_raw, object.get(), GIT_OBJECT_COMMIT) < 0)
    return core::fail(ErrorCode::validation, "the base '" + revision + "' is not a commit", {{"base", revision}});
  git::Object peeled(peeled_raw);
  git::Commit commit(reinterpret_cast<git_commit*>(peeled.release()));
  out.base_commit = git::oid_text(libgit2::get().git_commit_id(commit.get()));

  git_reference* existing = nullptr;
  if (libgit2::get().git_branch_lookup(&existing, repo->get(), out.branch.c_str(), GIT_BRANCH_LOCAL) == 0) {
    libgit2::get().git_reference_free(existing);
    return core::fail(ErrorCode::conflict,
                      "branch " + out.branch + " already exists in " + root.string() +
                          "; agentry never reuses or moves an existing branch",
                      {{"branch", out.branch}});
  }
  const fs::path path = dir / run_id;
  std::error_code ec;
  if (fs::exists(path, ec))
    return core::fail(ErrorCode::conflict, "the worktree directory " + path.string() + " already exists",
                      {{"path", path.string()}});
  fs::create_directories(dir, ec);
  if (ec) return core::fail(ErrorCode::internal, "cannot create " + dir.string() + ": " + ec.message());

  git_reference* raw_branch = nullptr;
  if (libgit2::get().git_branch_create(&raw_branch, repo->get(), out.branch.c_str(), commit.get(), /*force=*/0) < 0)
    return core::fail(ErrorCode::conflict, "cannot create branch " + out.branch + ": " + git::last_error(),
                      {{"branch", out.branch}});
  git::Reference branch(raw_branch);
  git_worktree_add_options options = GIT_WORKTREE_ADD_OPTIONS_INIT;
  options.ref = branch.get();
  git_worktree* raw_worktree = nullptr;
  if (libgit2::get().git_worktree_add(&raw_worktree, repo->get(), worktree_name(run_id).c_str(), path.c_str(), &options) < 0) {
    const std::string why = git::last_error();
    libgit2::get().git_reference_delete(branch.get());  // ours, created above, still at the base
    return core::fail(ErrorCode::internal, "cannot add a worktree at " + path.string() + ": " + why);
  }
  Worktree worktree(raw_worktree);
  out.path = fs::weakly_canonical(path, ec).string();
  if (ec) out.path = path.string();
  // The run works at the same place relative to the root as it was asked to.
  const fs::path relative = fs::weakly_canonical(cwd, ec).lexically_relative(root);
  out.cwd = (relative.empty() || relative == "." || *relative.begin() == "..")
                ? out.path
                : (fs::path(out.path) / relative).lexically_normal().string();
  while (out.cwd.size() > 1 && out.cwd.back() == '/') out.cwd.pop_back();
  if (!fs::is_directory(out.cwd, ec)) out.cwd = out.path;
  return out;
}

core::Result<WorktreeRemoval> remove_run_worktree(const RunWorktree& wt, const std::string& run_id) {
  WorktreeRemoval out;
  auto repo = git::open_work_tree(wt.repo_root);
  if (!repo) return repo.failure();
  git_worktree* raw = nullptr;
  if (libgit2::get().git_worktree_lookup(&raw, repo->get(), worktree_name(run_id).c_str()) == 0) {
    Worktree worktree(raw);
    git_worktree_prune_options options = GIT_WORKTREE_PRUNE_OPTIONS_INIT;
    options.flags = GIT_WORKTREE_PRUNE_VALID | GIT_WORKTREE_PRUNE_LOCKED | GIT_WORKTREE_PRUNE_WORKING_TREE;
    if (libgit2::get().git_worktree_prune(worktree.get(), &options) < 0)
      return core::fail(ErrorCode::internal, "cannot remove the worktree " + wt.path + ": " + git::last_error());
    out.worktree_removed = true;
  }
  std::error_code ec;
  if (!wt.path.empty() && fs::exists(wt.path, ec)) {
    fs::remove_all(wt.path, ec);
    out.worktree_removed = out.worktree_removed || !ec;
  }
  git_reference* raw_branch = nullptr;
  if (libgit2::get().git_branch_lookup(&raw_branch, repo->get(), wt.branch.c_str(), GIT_BRANCH_LOCAL) == 0) {
    git::Reference branch(raw_branch);
    const git_oid* target = libgit2::get().git_reference_target(branch.get());
    if (target && git::oid_text(target) == wt.base_commit) {
      // The ref only: agentry never configures the branch (no upstream), and libgit2
      // 1.5's git_branch_delete leaks in its config-section cleanup (LeakSanitizer).
      if (libgit2::get().git_reference_delete(branch.get()) == 0) out.branch_deleted = true;
    } else {
      out.branch_kept = true;
    }
  }
  return out;
}

}  // namespace agentry::workspace

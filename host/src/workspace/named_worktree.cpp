#include "workspace/named_worktree.hpp"

#include "workspace/git_handles.hpp"

#include <cctype>
#include <functional>
#include <optional>

namespace fs = std::filesystem;

namespace agentry::workspace {
namespace {

using core::ErrorCode;
using Worktree = git::Handle<git_worktree, &libgit2::Functions::git_worktree_free>;

core::Failure invalid(const std::string& key, const std::string& message) {
  return core::fail(ErrorCode::validation, "with." + key + " " + message, {{"field", "with." + key}});
}

std::string normal_path(const fs::path& p) {
  std::error_code ec;
  std::string out = fs::weakly_canonical(p, ec).string();
  if (ec) out = p.lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

/// A worktree at `path` of the same repository as `repo` (not its main checkout): opened,
/// with the branch it has checked out ("" when detached).
struct FoundWorktree {
  git::Repository repo;
  std::string branch;
};

std::optional<FoundWorktree> worktree_at(git_repository* repo, const fs::path& path) {
  git_repository* raw = nullptr;
  if (libgit2::get().git_repository_open_ext(&raw, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) < 0) {
    libgit2::get().git_error_clear();
    return std::nullopt;
  }
  git::Repository found(raw);
  if (libgit2::get().git_repository_is_worktree(found.get()) != 1 || libgit2::get().git_repository_is_bare(found.get())) return std::nullopt;
  if (normal_path(libgit2::get().git_repository_commondir(found.get())) != normal_path(libgit2::get().git_repository_commondir(repo))) return std::nullopt;
  if (normal_path(git::work_tree_root(found.get())) != normal_path(path)) return std::nullopt;  // a directory inside one
  FoundWorktree out{std::move(found), {}};
  git_reference* head = nullptr;
  if (libgit2::get().git_repository_head(&head, out.repo.get()) == 0) {
    git::Reference ref(head);
    if (libgit2::get().git_reference_is_branch(ref.get())) out.branch = libgit2::get().git_reference_shorthand(ref.get());
  } else {
    libgit2::get().git_error_clear();
  }
  return out;
}

/// collision: replace. Only a worktree of the repository (pruned, files and all) or an
/// empty directory is removed; anything else at the path is the user's.
core::Result<void> clear_for_replace(git_repository* repo, const fs::path& path, const std::string& repo_root) {
  if (auto found = worktree_at(repo, path)) {
    git_worktree* raw = nullptr;
    if (libgit2::get().git_worktree_open_from_repository(&raw, found->repo.get()) < 0)
      return core::fail(ErrorCode::internal, "cannot open the worktree at " + path.string() + ": " + git::last_error());
    Worktree worktree(raw);
    found->repo.reset();
    git_worktree_prune_options options = GIT_WORKTREE_PRUNE_OPTIONS_INIT;
    options.flags = GIT_WORKTREE_PRUNE_VALID | GIT_WORKTREE_PRUNE_LOCKED | GIT_WORKTREE_PRUNE_WORKING_TREE;
    if (libgit2::get().git_worktree_prune(worktree.get(), &options) < 0)
      return core::fail(ErrorCode::internal, "cannot remove the worktree at " + path.string() + ": " + git::last_error());
    return core::ok();
  }
  std::error_code ec;
  if (fs::is_directory(path, ec) && fs::is_empty(path, ec) && fs::remove(path, ec)) return core::ok();
  return core::fail(ErrorCode::conflict,
                    "with.path " + path.string() + " exists and is not a worktree of " + repo_root +
                        " (collision: replace removes only a worktree of the repository, or an empty directory)",
                    {{"field", "with.path"}, {"path", path.string()}});
}

/// A name for <git dir>/worktrees/: the path's last component, made unique.
std::string admin_name(git_repository* repo, const fs::path& path) {
  std::string base;
  for (unsigned char c : path.filename().string())
    base += std::isalnum(c) != 0 || c == '-' || c == '_' ? static_cast<char>(c) : '-';
  if (base.empty() || base.front() == '-') base = "worktree" + base;
  const fs::path admin = fs::path(libgit2::get().git_repository_commondir(repo)) / "worktrees";
  for (int i = 0; i < 1000; ++i) {
    std::string name = i == 0 ? base : base + "-" + std::to_string(i);
    std::error_code ec;
    if (!fs::exists(admin / name, ec)) return name;
  }
  return base + "-" + std::to_string(std::hash<std::string>{}(path.string()));
}

/// The repository's main work tree, also when `repo` was opened in one of its linked
/// worktrees (a run whose cwd already moved into one): <main>/.git is the common dir.
std::string main_work_tree(git_repository* repo) {
  if (libgit2::get().git_repository_is_worktree(repo) == 1) {
    const fs::path common = fs::path(normal_path(libgit2::get().git_repository_commondir(repo)));
    if (common.filename() == ".git") return common.parent_path().string();
  }
  return git::work_tree_root(repo).string();
}

core::Result<void> check(const NamedWorktreeRequest& r) {
  if (r.repo.empty() || !r.repo.is_absolute()) return invalid("repo", "must be an absolute path (got '" + r.repo.string() + "')");
  if (r.path.empty() || !r.path.is_absolute()) return invalid("path", "must be an absolute path (got '" + r.path.string() + "')");
  int valid = 0;
  if (r.branch.empty() || libgit2::get().git_branch_name_is_valid(&valid, r.branch.c_str()) < 0 || valid == 0) {
    libgit2::get().git_error_clear();
    return invalid("branch", "'" + r.branch + "' is not a valid git branch name");
  }
  if (r.from.empty()) return invalid("from", "must name a revision (a branch, tag or commit)");
  return core::ok();
}

}  // namespace

core::Result<NamedWorktree> ensure_named_worktree(const NamedWorktreeRequest& r) {
  git::ensure_initialized();
  if (auto ok = check(r); !ok) return ok.failure();
  std::error_code ec;
  if (!fs::is_directory(r.repo, ec)) return invalid("repo", r.repo.string() + " is not a directory");
  auto repo = git::open_work_tree(r.repo);
  if (!repo) return invalid("repo", r.repo.string() + " is in no git work tree: " + repo.error().message);
  NamedWorktree out;
  out.repo_root = main_work_tree(repo->get());
  out.branch = r.branch;
  const fs::path path = r.path.lexically_normal();

  if (fs::exists(path, ec) || fs::is_symlink(path, ec)) {
    if (r.collision == WorktreeCollision::fail)
      return core::fail(ErrorCode::conflict, "with.path " + path.string() + " already exists (collision: fail)",
                        {{"field", "with.path"}, {"path", path.string()}});
    if (r.collision == WorktreeCollision::reuse) {
      auto found = worktree_at(repo->get(), path);
      if (!found)
        return core::fail(ErrorCode::conflict,
                          "with.path " + path.string() + " exists and is not a worktree of " + out.repo_root +
                              " (collision: reuse takes only a worktree of the repository on branch " + r.branch + ")",
                          {{"field", "with.path"}, {"path", path.string()}});
      if (found->branch != r.branch)
        return core::fail(ErrorCode::conflict,
                          "with.path " + path.string() + " is a worktree on " +
                              (found->branch.empty() ? std::string("a detached HEAD") : "branch " + found->branch) +
                              ", not on " + r.branch + " (collision: reuse)",
                          {{"field", "with.path"}, {"path", path.string()}});
      git_worktree* raw = nullptr;
      if (libgit2::get().git_worktree_open_from_repository(&raw, found->repo.get()) == 0) {
        Worktree worktree(raw);
        out.name = libgit2::get().git_worktree_name(worktree.get());
      } else {
        libgit2::get().git_error_clear();
      }
      git_reference* head = nullptr;
      if (libgit2::get().git_repository_head(&head, found->repo.get()) == 0) {
        git::Reference ref(head);
        if (const git_oid* target = libgit2::get().git_reference_target(ref.get())) out.base_commit = git::oid_text(target);
      } else {
        libgit2::get().git_error_clear();
      }
      out.path = normal_path(path);
      return out;
    }
    if (auto cleared = clear_for_replace(repo->get(), path, out.repo_root); !cleared) return cleared.failure();
    out.replaced = true;
  }

  git_reference* raw_branch = nullptr;
  git::Reference branch;
  if (libgit2::get().git_branch_lookup(&raw_branch, repo->get(), r.branch.c_str(), GIT_BRANCH_LOCAL) == 0) {
    branch.reset(raw_branch);
    if (libgit2::get().git_branch_is_checked_out(branch.get()) == 1)
      return core::fail(ErrorCode::conflict,
                        "with.branch " + r.branch + " is already checked out in " + out.repo_root +
                            " or one of its worktrees; git checks a branch out in one place only",
                        {{"field", "with.branch"}, {"branch", r.branch}});
    const git_oid* target = libgit2::get().git_reference_target(branch.get());
    if (target) out.base_commit = git::oid_text(target);
  } else {
    libgit2::get().git_error_clear();
    git_object* raw_object = nullptr;
    if (libgit2::get().git_revparse_single(&raw_object, repo->get(), r.from.c_str()) < 0) {
      const std::string why = git::last_error();
      return invalid("from", "'" + r.from + "' names no commit in " + out.repo_root + ": " + why);
    }
    git::Object object(raw_object);
    git_object* peeled_raw = nullptr;
    if (libgit2::get().git_object_peel(&peeled_raw, object.get(), GIT_OBJECT_COMMIT) < 0) {
      libgit2::get().git_error_clear();
      return invalid("from", "'" + r.from + "' is not a commit");
    }
    git::Object peeled(peeled_raw);
    git::Commit commit(reinterpret_cast<git_commit*>(peeled.release()));
    if (libgit2::get().git_branch_create(&raw_branch, repo->get(), r.branch.c_str(), commit.get(), /*force=*/0) < 0)
      return core::fail(ErrorCode::conflict, "cannot create branch " + r.branch + ": " + git::last_error(),
                        {{"field", "with.branch"}, {"branch", r.branch}});
    branch.reset(raw_branch);
    out.base_commit = git::oid_text(libgit2::get().git_commit_id(commit.get()));
    out.created_branch = true;
  }

  fs::create_directories(path.parent_path(), ec);
  out.name = admin_name(repo->get(), path);
  git_worktree_add_options options = GIT_WORKTREE_ADD_OPTIONS_INIT;
  options.ref = branch.get();
  git_worktree* raw_worktree = nullptr;
  if (libgit2::get().git_worktree_add(&raw_worktree, repo->get(), out.name.c_str(), path.c_str(), &options) < 0) {
    const std::string why = git::last_error();
    if (out.created_branch) libgit2::get().git_reference_delete(branch.get());  // made above, still at `from`
    return core::fail(ErrorCode::internal, "cannot add a worktree at " + path.string() + ": " + why,
                      {{"path", path.string()}});
  }
  Worktree worktree(raw_worktree);
  out.path = normal_path(path);
  out.created_worktree = true;
  return out;
}

core::Result<NamedWorktreeRemoval> remove_named_worktree(const NamedWorktree& wt) {
  NamedWorktreeRemoval out;
  if (!wt.created_worktree && !wt.created_branch) return out;
  auto repo = git::open_work_tree(wt.repo_root);
  if (!repo) return repo.failure();
  if (wt.created_worktree && !wt.name.empty()) {
    git_worktree* raw = nullptr;
    if (libgit2::get().git_worktree_lookup(&raw, repo->get(), wt.name.c_str()) == 0) {
      Worktree worktree(raw);
      // Still the one the run made: a name is reused once its worktree is gone.
      if (normal_path(libgit2::get().git_worktree_path(worktree.get())) == normal_path(wt.path)) {
        git_worktree_prune_options options = GIT_WORKTREE_PRUNE_OPTIONS_INIT;
        options.flags = GIT_WORKTREE_PRUNE_VALID | GIT_WORKTREE_PRUNE_LOCKED | GIT_WORKTREE_PRUNE_WORKING_TREE;
        if (libgit2::get().git_worktree_prune(worktree.get(), &options) < 0)
          return core::fail(ErrorCode::internal, "cannot remove the worktree " + wt.path + ": " + git::last_error());
        out.worktree_removed = true;
      }
    } else {
      libgit2::get().git_error_clear();
    }
  }
  if (wt.created_branch) {
    git_reference* raw_branch = nullptr;
    if (libgit2::get().git_branch_lookup(&raw_branch, repo->get(), wt.branch.c_str(), GIT_BRANCH_LOCAL) == 0) {
      git::Reference branch(raw_branch);
      const git_oid* target = libgit2::get().git_reference_target(branch.get());
      if (target && git::oid_text(target) == wt.base_commit && libgit2::get().git_branch_is_checked_out(branch.get()) == 0) {
        // The ref only, as worktree.cpp does (no config of it was made).
        if (libgit2::get().git_reference_delete(branch.get()) == 0) out.branch_deleted = true;
      } else {
        out.branch_kept = true;
      }
    } else {
      libgit2::get().git_error_clear();
    }
  }
  return out;
}

}  // namespace agentry::workspace

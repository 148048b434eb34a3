#include "workspace/baseline.hpp"

#include "workspace/diff.hpp"
#include "workspace/git_handles.hpp"
#include "workspace/limits.hpp"


#include <sys/stat.h>

#include <cstdint>

namespace agentry::workspace {
using core::ErrorCode;

namespace {

/// What add_all may take in: a home directory that happens to be a repository (dotfiles)
/// must not be copied into its object database.
struct Budget {
  Deadline deadline;
  std::filesystem::path work_tree;
  std::size_t files = 0;
  std::uint64_t bytes = 0;
  const char* exceeded = nullptr;  // "deadline", "files", "bytes"
};

constexpr std::size_t max_snapshot_files = 20000;
constexpr std::uint64_t max_snapshot_bytes = 512ull * 1024 * 1024;

/// Called for each path add_all/update_all would change: <0 aborts, 0 goes ahead.
int on_matched_path(const char* path, const char*, void* payload) {
  auto* budget = static_cast<Budget*>(payload);
  if (budget->deadline.passed()) budget->exceeded = "deadline";
  else if (++budget->files > max_snapshot_files) budget->exceeded = "files";
  else {
    struct stat info {};
    if (::lstat((budget->work_tree / path).c_str(), &info) == 0 && S_ISREG(info.st_mode))
      budget->bytes += static_cast<std::uint64_t>(info.st_size);
    if (budget->bytes > max_snapshot_bytes) budget->exceeded = "bytes";
  }
  return budget->exceeded ? -1 : 0;
}

}  // namespace

core::Result<std::optional<Baseline>> record_baseline(const std::filesystem::path& cwd, const std::string& run_id,
                                                      std::chrono::milliseconds budget) {
  Budget limits{Deadline(budget), {}, 0, 0, nullptr};
  git::ensure_initialized();
  git_repository* raw_repo = nullptr;
  if (libgit2::get().git_repository_open_ext(&raw_repo, cwd.c_str(), 0, nullptr) < 0) {
    libgit2::get().git_repository_free(raw_repo);
    return std::optional<Baseline>{};  // not in a work tree: nothing to record
  }
  git::Repository repo(raw_repo);
  if (libgit2::get().git_repository_is_bare(repo.get())) return std::optional<Baseline>{};
  Baseline out;
  out.ref = baseline_ref(run_id);
  git_oid existing;
  if (libgit2::get().git_reference_name_to_id(&existing, repo.get(), out.ref.c_str()) == 0) {
    out.commit = git::oid_text(&existing);
    return std::optional<Baseline>(out);
  }

  // A second index object read from the same file, owned by this handle only: adding
  // the work tree to it changes nothing on disk but new objects, and it is never written.
  const std::string index_path = std::string(libgit2::get().git_repository_path(repo.get())) + "index";
  git_index* raw_index = nullptr;
  if (libgit2::get().git_index_open(&raw_index, index_path.c_str()) < 0)
    return core::fail(ErrorCode::internal, "baseline: cannot read the index: " + git::last_error());
  git::Index index(raw_index);
  if (libgit2::get().git_repository_set_index(repo.get(), index.get()) < 0)
    return core::fail(ErrorCode::internal, "baseline: " + git::last_error());
  limits.work_tree = git::work_tree_root(repo.get());
  const auto too_large = [&] {
    return core::fail(ErrorCode::unavailable,
                      std::string("baseline: the work tree of ") + cwd.string() + " is too large to snapshot (" +
                          (std::string(limits.exceeded) == "deadline"
                               ? "over " + std::to_string(budget.count()) + " ms"
                           : std::string(limits.exceeded) == "files"
                               ? "over " + std::to_string(max_snapshot_files) + " changed or untracked files"
                               : "over " + std::to_string(max_snapshot_bytes >> 20) + " MiB of them") +
                          ")",
                      {{"reason", limits.exceeded}});
  };
  if (libgit2::get().git_index_add_all(index.get(), nullptr, GIT_INDEX_ADD_DEFAULT, on_matched_path, &limits) < 0)
    return limits.exceeded ? too_large()
                           : core::fail(ErrorCode::validation, "baseline: cannot add the work tree: " + git::last_error());
  limits.files = 0;  // the second pass (deletions) sees the same changes again
  limits.bytes = 0;
  if (libgit2::get().git_index_update_all(index.get(), nullptr, on_matched_path, &limits) < 0)
    return limits.exceeded ? too_large()
                           : core::fail(ErrorCode::validation, "baseline: cannot update the work tree: " + git::last_error());
  git_oid tree_id;
  if (libgit2::get().git_index_write_tree_to(&tree_id, index.get(), repo.get()) < 0)
    return core::fail(ErrorCode::validation, "baseline: cannot write the tree: " + git::last_error());
  out.tree = git::oid_text(&tree_id);

  git_tree* raw_tree = nullptr;
  if (libgit2::get().git_tree_lookup(&raw_tree, repo.get(), &tree_id) < 0)
    return core::fail(ErrorCode::internal, "baseline tree: " + git::last_error());
  git::Tree tree(raw_tree);
  git::Commit parent;
  git_object* head = nullptr;
  if (libgit2::get().git_revparse_single(&head, repo.get(), "HEAD^{commit}") == 0)
    parent = git::Commit(reinterpret_cast<git_commit*>(head));
  git_signature* raw_signature = nullptr;
  if (libgit2::get().git_signature_now(&raw_signature, "agentry", "agentry@localhost") < 0)
    return core::fail(ErrorCode::internal, "baseline signature: " + git::last_error());
  git::Signature signature(raw_signature);
  const git_commit* parents[1] = {parent.get()};
  const std::string message = "agentry baseline of run " + run_id + "\n";
  git_oid commit_id;
  if (libgit2::get().git_commit_create(&commit_id, repo.get(), nullptr, signature.get(), signature.get(), nullptr, message.c_str(),
                        tree.get(), parent ? 1 : 0, parents) < 0)
    return core::fail(ErrorCode::validation, "baseline: cannot write the commit: " + git::last_error());
  git_reference* raw_ref = nullptr;
  const int rc = libgit2::get().git_reference_create(&raw_ref, repo.get(), out.ref.c_str(), &commit_id, 0, message.c_str());
  git::Reference ref(raw_ref);
  if (rc == GIT_EEXISTS) {  // recorded concurrently: keep the first
    if (libgit2::get().git_reference_name_to_id(&existing, repo.get(), out.ref.c_str()) == 0) out.commit = git::oid_text(&existing);
    return std::optional<Baseline>(out);
  }
  if (rc < 0) return core::fail(ErrorCode::validation, "baseline: cannot create " + out.ref + ": " + git::last_error());
  out.commit = git::oid_text(&commit_id);
  out.created = true;
  return std::optional<Baseline>(out);
}

void remove_baseline(const std::filesystem::path& cwd, const std::string& run_id) {
  git::ensure_initialized();
  git_repository* raw_repo = nullptr;
  if (libgit2::get().git_repository_open_ext(&raw_repo, cwd.c_str(), 0, nullptr) < 0) {
    libgit2::get().git_repository_free(raw_repo);
    return;
  }
  git::Repository repo(raw_repo);
  libgit2::get().git_reference_remove(repo.get(), baseline_ref(run_id).c_str());
}

}  // namespace agentry::workspace

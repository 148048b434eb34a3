#include "workspace/libgit2.hpp"

#include <dlfcn.h>

#include <stdexcept>
#include <string>

namespace agentry::workspace::libgit2 {
namespace {

constexpr const char* kLibrary = "libgit2.so.1.5";

template <class Function>
void bind(void* library, Function& out, const char* name) {
  void* symbol = dlsym(library, name);
  if (symbol == nullptr) throw std::runtime_error(std::string(kLibrary) + " has no " + name);
  out = reinterpret_cast<Function>(symbol);
}

Functions load() {
  // Never closed: repositories and diffs may be in use on any thread until exit.
  void* library = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    throw std::runtime_error(std::string("workspace views need ") + kLibrary +
                             " (Debian: apt install libgit2-1.5): " + (why != nullptr ? why : "not found"));
  }
  Functions f{};
  bind(library, f.git_branch_create, "git_branch_create");
  bind(library, f.git_branch_is_checked_out, "git_branch_is_checked_out");
  bind(library, f.git_branch_lookup, "git_branch_lookup");
  bind(library, f.git_branch_name_is_valid, "git_branch_name_is_valid");
  bind(library, f.git_buf_dispose, "git_buf_dispose");
  bind(library, f.git_commit_create, "git_commit_create");
  bind(library, f.git_commit_free, "git_commit_free");
  bind(library, f.git_commit_id, "git_commit_id");
  bind(library, f.git_commit_lookup, "git_commit_lookup");
  bind(library, f.git_commit_tree, "git_commit_tree");
  bind(library, f.git_diff_find_options_init, "git_diff_find_options_init");
  bind(library, f.git_diff_find_similar, "git_diff_find_similar");
  bind(library, f.git_diff_free, "git_diff_free");
  bind(library, f.git_diff_get_delta, "git_diff_get_delta");
  bind(library, f.git_diff_index_to_workdir, "git_diff_index_to_workdir");
  bind(library, f.git_diff_num_deltas, "git_diff_num_deltas");
  bind(library, f.git_diff_options_init, "git_diff_options_init");
  bind(library, f.git_diff_stats_free, "git_diff_stats_free");
  bind(library, f.git_diff_tree_to_index, "git_diff_tree_to_index");
  bind(library, f.git_diff_tree_to_tree, "git_diff_tree_to_tree");
  bind(library, f.git_diff_tree_to_workdir, "git_diff_tree_to_workdir");
  bind(library, f.git_diff_tree_to_workdir_with_index, "git_diff_tree_to_workdir_with_index");
  bind(library, f.git_error_clear, "git_error_clear");
  bind(library, f.git_error_last, "git_error_last");
  bind(library, f.git_index_add_all, "git_index_add_all");
  bind(library, f.git_index_free, "git_index_free");
  bind(library, f.git_index_open, "git_index_open");
  bind(library, f.git_index_update_all, "git_index_update_all");
  bind(library, f.git_index_write_tree_to, "git_index_write_tree_to");
  bind(library, f.git_libgit2_init, "git_libgit2_init");
  bind(library, f.git_libgit2_version, "git_libgit2_version");
  bind(library, f.git_merge_base, "git_merge_base");
  bind(library, f.git_object_free, "git_object_free");
  bind(library, f.git_object_id, "git_object_id");
  bind(library, f.git_object_peel, "git_object_peel");
  bind(library, f.git_oid_tostr, "git_oid_tostr");
  bind(library, f.git_patch_free, "git_patch_free");
  bind(library, f.git_patch_from_diff, "git_patch_from_diff");
  bind(library, f.git_patch_get_delta, "git_patch_get_delta");
  bind(library, f.git_patch_line_stats, "git_patch_line_stats");
  bind(library, f.git_patch_to_buf, "git_patch_to_buf");
  bind(library, f.git_reference_create, "git_reference_create");
  bind(library, f.git_reference_delete, "git_reference_delete");
  bind(library, f.git_reference_free, "git_reference_free");
  bind(library, f.git_reference_is_branch, "git_reference_is_branch");
  bind(library, f.git_reference_iterator_free, "git_reference_iterator_free");
  bind(library, f.git_reference_iterator_new, "git_reference_iterator_new");
  bind(library, f.git_reference_lookup, "git_reference_lookup");
  bind(library, f.git_reference_name, "git_reference_name");
  bind(library, f.git_reference_name_to_id, "git_reference_name_to_id");
  bind(library, f.git_reference_next, "git_reference_next");
  bind(library, f.git_reference_peel, "git_reference_peel");
  bind(library, f.git_reference_remove, "git_reference_remove");
  bind(library, f.git_reference_shorthand, "git_reference_shorthand");
  bind(library, f.git_reference_symbolic_target, "git_reference_symbolic_target");
  bind(library, f.git_reference_target, "git_reference_target");
  bind(library, f.git_reference_type, "git_reference_type");
  bind(library, f.git_repository_commondir, "git_repository_commondir");
  bind(library, f.git_repository_free, "git_repository_free");
  bind(library, f.git_repository_head, "git_repository_head");
  bind(library, f.git_repository_head_unborn, "git_repository_head_unborn");
  bind(library, f.git_repository_index, "git_repository_index");
  bind(library, f.git_repository_is_bare, "git_repository_is_bare");
  bind(library, f.git_repository_is_worktree, "git_repository_is_worktree");
  bind(library, f.git_repository_open_ext, "git_repository_open_ext");
  bind(library, f.git_repository_path, "git_repository_path");
  bind(library, f.git_repository_set_index, "git_repository_set_index");
  bind(library, f.git_repository_workdir, "git_repository_workdir");
  bind(library, f.git_revparse_single, "git_revparse_single");
  bind(library, f.git_signature_free, "git_signature_free");
  bind(library, f.git_signature_now, "git_signature_now");
  bind(library, f.git_tree_free, "git_tree_free");
  bind(library, f.git_tree_lookup, "git_tree_lookup");
  bind(library, f.git_worktree_add, "git_worktree_add");
  bind(library, f.git_worktree_free, "git_worktree_free");
  bind(library, f.git_worktree_lookup, "git_worktree_lookup");
  bind(library, f.git_worktree_name, "git_worktree_name");
  bind(library, f.git_worktree_open_from_repository, "git_worktree_open_from_repository");
  bind(library, f.git_worktree_path, "git_worktree_path");
  bind(library, f.git_worktree_prune, "git_worktree_prune");
  return f;
}

}  // namespace

const Functions& get() {
  static const Functions functions = load();  // a throw leaves it to the next call
  return functions;
}

}  // namespace agentry::workspace::libgit2

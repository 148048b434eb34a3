#include "workspace/libgit2.hpp"

#include "core/lazy_library.hpp"

namespace agentry::workspace::libgit2 {
namespace {

Functions load() {
  const core::LazyLibrary library("libgit2.so.1.5", "libgit2-1.5");
  Functions f{};
  library.bind(f.git_branch_create, "git_branch_create");
  library.bind(f.git_branch_is_checked_out, "git_branch_is_checked_out");
  library.bind(f.git_branch_lookup, "git_branch_lookup");
  library.bind(f.git_branch_name_is_valid, "git_branch_name_is_valid");
  library.bind(f.git_buf_dispose, "git_buf_dispose");
  library.bind(f.git_commit_create, "git_commit_create");
  library.bind(f.git_commit_free, "git_commit_free");
  library.bind(f.git_commit_id, "git_commit_id");
  library.bind(f.git_commit_lookup, "git_commit_lookup");
  library.bind(f.git_commit_tree, "git_commit_tree");
  library.bind(f.git_diff_find_options_init, "git_diff_find_options_init");
  library.bind(f.git_diff_find_similar, "git_diff_find_similar");
  library.bind(f.git_diff_free, "git_diff_free");
  library.bind(f.git_diff_get_delta, "git_diff_get_delta");
  library.bind(f.git_diff_index_to_workdir, "git_diff_index_to_workdir");
  library.bind(f.git_diff_num_deltas, "git_diff_num_deltas");
  library.bind(f.git_diff_options_init, "git_diff_options_init");
  library.bind(f.git_diff_stats_free, "git_diff_stats_free");
  library.bind(f.git_diff_tree_to_index, "git_diff_tree_to_index");
  library.bind(f.git_diff_tree_to_tree, "git_diff_tree_to_tree");
  library.bind(f.git_diff_tree_to_workdir, "git_diff_tree_to_workdir");
  library.bind(f.git_diff_tree_to_workdir_with_index, "git_diff_tree_to_workdir_with_index");
  library.bind(f.git_error_clear, "git_error_clear");
  library.bind(f.git_error_last, "git_error_last");
  library.bind(f.git_index_add_all, "git_index_add_all");
  library.bind(f.git_index_free, "git_index_free");
  library.bind(f.git_index_open, "git_index_open");
  library.bind(f.git_index_update_all, "git_index_update_all");
  library.bind(f.git_index_write_tree_to, "git_index_write_tree_to");
  library.bind(f.git_libgit2_init, "git_libgit2_init");
  library.bind(f.git_libgit2_version, "git_libgit2_version");
  library.bind(f.git_merge_base, "git_merge_base");
  library.bind(f.git_object_free, "git_object_free");
  library.bind(f.git_object_id, "git_object_id");
  library.bind(f.git_object_peel, "git_object_peel");
  library.bind(f.git_oid_tostr, "git_oid_tostr");
  library.bind(f.git_patch_free, "git_patch_free");
  library.bind(f.git_patch_from_diff, "git_patch_from_diff");
  library.bind(f.git_patch_get_delta, "git_patch_get_delta");
  library.bind(f.git_patch_line_stats, "git_patch_line_stats");
  library.bind(f.git_patch_to_buf, "git_patch_to_buf");
  library.bind(f.git_reference_create, "git_reference_create");
  library.bind(f.git_reference_delete, "git_reference_delete");
  library.bind(f.git_reference_free, "git_reference_free");
  library.bind(f.git_reference_is_branch, "git_reference_is_branch");
  library.bind(f.git_reference_iterator_free, "git_reference_iterator_free");
  library.bind(f.git_reference_iterator_new, "git_reference_iterator_new");
  library.bind(f.git_reference_lookup, "git_reference_lookup");
  library.bind(f.git_reference_name, "git_reference_name");
  library.bind(f.git_reference_name_to_id, "git_reference_name_to_id");
  library.bind(f.git_reference_next, "git_reference_next");
  library.bind(f.git_reference_peel, "git_reference_peel");
  library.bind(f.git_reference_remove, "git_reference_remove");
  library.bind(f.git_reference_shorthand, "git_reference_shorthand");
  library.bind(f.git_reference_symbolic_target, "git_reference_symbolic_target");
  library.bind(f.git_reference_target, "git_reference_target");
  library.bind(f.git_reference_type, "git_reference_type");
  library.bind(f.git_repository_commondir, "git_repository_commondir");
  library.bind(f.git_repository_free, "git_repository_free");
  library.bind(f.git_repository_head, "git_repository_head");
  library.bind(f.git_repository_head_unborn, "git_repository_head_unborn");
  library.bind(f.git_repository_index, "git_repository_index");
  library.bind(f.git_repository_is_bare, "git_repository_is_bare");
  library.bind(f.git_repository_is_worktree, "git_repository_is_worktree");
  library.bind(f.git_repository_open_ext, "git_repository_open_ext");
  library.bind(f.git_repository_path, "git_repository_path");
  library.bind(f.git_repository_set_index, "git_repository_set_index");
  library.bind(f.git_repository_workdir, "git_repository_workdir");
  library.bind(f.git_revparse_single, "git_revparse_single");
  library.bind(f.git_signature_free, "git_signature_free");
  library.bind(f.git_signature_now, "git_signature_now");
  library.bind(f.git_tree_free, "git_tree_free");
  library.bind(f.git_tree_lookup, "git_tree_lookup");
  library.bind(f.git_worktree_add, "git_worktree_add");
  library.bind(f.git_worktree_free, "git_worktree_free");
  library.bind(f.git_worktree_lookup, "git_worktree_lookup");
  library.bind(f.git_worktree_name, "git_worktree_name");
  library.bind(f.git_worktree_open_from_repository, "git_worktree_open_from_repository");
  library.bind(f.git_worktree_path, "git_worktree_path");
  library.bind(f.git_worktree_prune, "git_worktree_prune");
  return f;
}

}  // namespace

const Functions& get() {
  static const Functions functions = load();  // a throw leaves it to the next call
  return functions;
}

}  // namespace agentry::workspace::libgit2

// libgit2, opened on first use instead of linked: its chain (Kerberos, mbedTLS, libssh2,
// PCRE2: 17 libraries) cost every agentry process about 7 ms of loading at start, though
// only workspace views, worktrees and baselines use it. The workspace calls libgit2
// through get(), by libgit2's own names.
#pragma once

#include <git2.h>
#include <git2/sys/repository.h>  // git_repository_set_index

namespace agentry::workspace::libgit2 {

struct Functions {
  decltype(&::git_branch_create) git_branch_create;
  decltype(&::git_branch_is_checked_out) git_branch_is_checked_out;
  decltype(&::git_branch_lookup) git_branch_lookup;
  decltype(&::git_branch_name_is_valid) git_branch_name_is_valid;
  decltype(&::git_buf_dispose) git_buf_dispose;
  decltype(&::git_commit_create) git_commit_create;
  decltype(&::git_commit_free) git_commit_free;
  decltype(&::git_commit_id) git_commit_id;
  decltype(&::git_commit_lookup) git_commit_lookup;
  decltype(&::git_commit_tree) git_commit_tree;
  decltype(&::git_diff_find_options_init) git_diff_find_options_init;
  decltype(&::git_diff_find_similar) git_diff_find_similar;
  decltype(&::git_diff_free) git_diff_free;
  decltype(&::git_diff_get_delta) git_diff_get_delta;
  decltype(&::git_diff_index_to_workdir) git_diff_index_to_workdir;
  decltype(&::git_diff_num_deltas) git_diff_num_deltas;
  decltype(&::git_diff_options_init) git_diff_options_init;
  decltype(&::git_diff_stats_free) git_diff_stats_free;
  decltype(&::git_diff_tree_to_index) git_diff_tree_to_index;
  decltype(&::git_diff_tree_to_tree) git_diff_tree_to_tree;
  decltype(&::git_diff_tree_to_workdir) git_diff_tree_to_workdir;
  decltype(&::git_diff_tree_to_workdir_with_index) git_diff_tree_to_workdir_with_index;
  decltype(&::git_error_clear) git_error_clear;
  decltype(&::git_error_last) git_error_last;
  decltype(&::git_index_add_all) git_index_add_all;
  decltype(&::git_index_free) git_index_free;
  decltype(&::git_index_open) git_index_open;
  decltype(&::git_index_update_all) git_index_update_all;
  decltype(&::git_index_write_tree_to) git_index_write_tree_to;
  decltype(&::git_libgit2_init) git_libgit2_init;
  decltype(&::git_libgit2_version) git_libgit2_version;
  decltype(&::git_merge_base) git_merge_base;
  decltype(&::git_object_free) git_object_free;
  decltype(&::git_object_id) git_object_id;
  decltype(&::git_object_peel) git_object_peel;
  decltype(&::git_oid_tostr) git_oid_tostr;
  decltype(&::git_patch_free) git_patch_free;
  decltype(&::git_patch_from_diff) git_patch_from_diff;
  decltype(&::git_patch_get_delta) git_patch_get_delta;
  decltype(&::git_patch_line_stats) git_patch_line_stats;
  decltype(&::git_patch_to_buf) git_patch_to_buf;
  decltype(&::git_reference_create) git_reference_create;
  decltype(&::git_reference_delete) git_reference_delete;
  decltype(&::git_reference_free) git_reference_free;
  decltype(&::git_reference_is_branch) git_reference_is_branch;
  decltype(&::git_reference_iterator_free) git_reference_iterator_free;
  decltype(&::git_reference_iterator_new) git_reference_iterator_new;
  decltype(&::git_reference_lookup) git_reference_lookup;
  decltype(&::git_reference_name) git_reference_name;
  decltype(&::git_reference_name_to_id) git_reference_name_to_id;
  decltype(&::git_reference_next) git_reference_next;
  decltype(&::git_reference_peel) git_reference_peel;
  decltype(&::git_reference_remove) git_reference_remove;
  decltype(&::git_reference_shorthand) git_reference_shorthand;
  decltype(&::git_reference_symbolic_target) git_reference_symbolic_target;
  decltype(&::git_reference_target) git_reference_target;
  decltype(&::git_reference_type) git_reference_type;
  decltype(&::git_repository_commondir) git_repository_commondir;
  decltype(&::git_repository_free) git_repository_free;
  decltype(&::git_repository_head) git_repository_head;
  decltype(&::git_repository_head_unborn) git_repository_head_unborn;
  decltype(&::git_repository_index) git_repository_index;
  decltype(&::git_repository_is_bare) git_repository_is_bare;
  decltype(&::git_repository_is_worktree) git_repository_is_worktree;
  decltype(&::git_repository_open_ext) git_repository_open_ext;
  decltype(&::git_repository_path) git_repository_path;
  decltype(&::git_repository_set_index) git_repository_set_index;
  decltype(&::git_repository_workdir) git_repository_workdir;
  decltype(&::git_revparse_single) git_revparse_single;
  decltype(&::git_signature_free) git_signature_free;
  decltype(&::git_signature_now) git_signature_now;
  decltype(&::git_tree_free) git_tree_free;
  decltype(&::git_tree_lookup) git_tree_lookup;
  decltype(&::git_worktree_add) git_worktree_add;
  decltype(&::git_worktree_free) git_worktree_free;
  decltype(&::git_worktree_lookup) git_worktree_lookup;
  decltype(&::git_worktree_name) git_worktree_name;
  decltype(&::git_worktree_open_from_repository) git_worktree_open_from_repository;
  decltype(&::git_worktree_path) git_worktree_path;
  decltype(&::git_worktree_prune) git_worktree_prune;
};

/// Opens libgit2.so.1.5 on the first call. Throws std::runtime_error saying what to
/// install when it cannot, and tries again on the next call.
const Functions& get();

}  // namespace agentry::workspace::libgit2

#pragma once
// RAII for the libgit2 objects the workspace uses, and its one-time initialisation.
// Internal to host/src/workspace: the only code that includes <git2.h>.

#include "core/result.hpp"

#include <git2.h>

#include <filesystem>
#include <memory>
#include <string>

namespace agentry::workspace::git {

/// git_libgit2_init(), once per process, before the first libgit2 call of every entry point
/// (never shut down: other threads may still use it).
void ensure_initialized();

template <class T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const {
    if (p) Free(p);
  }
};
template <class T, void (*Free)(T*)>
using Handle = std::unique_ptr<T, Deleter<T, Free>>;

using Repository = Handle<git_repository, git_repository_free>;
using Object = Handle<git_object, git_object_free>;
using Commit = Handle<git_commit, git_commit_free>;
using Tree = Handle<git_tree, git_tree_free>;
using Index = Handle<git_index, git_index_free>;
using Diff = Handle<git_diff, git_diff_free>;
using Patch = Handle<git_patch, git_patch_free>;
using Reference = Handle<git_reference, git_reference_free>;
using Signature = Handle<git_signature, git_signature_free>;
using DiffStats = Handle<git_diff_stats, git_diff_stats_free>;

struct Buffer {
  git_buf buf = GIT_BUF_INIT;
  Buffer() = default;
  ~Buffer() { git_buf_dispose(&buf); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

/// The object id as 40 hex digits.
std::string oid_text(const git_oid* oid);

/// The last libgit2 error's message, or `fallback`.
std::string last_error(const char* fallback = "unknown libgit2 error");

/// The work tree repository that contains `cwd` (searching upwards, stopping at file
/// system boundaries as git does). VALIDATION_FAILED when there is none, or it is bare.
core::Result<Repository> open_work_tree(const std::filesystem::path& cwd);

/// The work tree's root, without the trailing slash.
std::filesystem::path work_tree_root(git_repository* repo);

}  // namespace agentry::workspace::git

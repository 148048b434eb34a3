#pragma once
// RAII for the libgit2 objects the workspace uses, and its one-time initialisation.
// Internal to host/src/workspace: the only code that includes <git2.h>.

#include "core/result.hpp"

#include "workspace/libgit2.hpp"

#include <filesystem>
#include <memory>
#include <string>

namespace agentry::workspace::git {

/// git_libgit2_init(), once per process, before the first libgit2 call of every entry point
/// (never shut down: other threads may still use it).
void ensure_initialized();

// `Free` names the libgit2 function (a member of libgit2::Functions) that frees a T.
template <class T, void (*libgit2::Functions::*Free)(T*)>
struct Deleter {
  void operator()(T* p) const {
    if (p) (libgit2::get().*Free)(p);
  }
};
template <class T, void (*libgit2::Functions::*Free)(T*)>
using Handle = std::unique_ptr<T, Deleter<T, Free>>;

using Repository = Handle<git_repository, &libgit2::Functions::git_repository_free>;
using Object = Handle<git_object, &libgit2::Functions::git_object_free>;
using Commit = Handle<git_commit, &libgit2::Functions::git_commit_free>;
using Tree = Handle<git_tree, &libgit2::Functions::git_tree_free>;
using Index = Handle<git_index, &libgit2::Functions::git_index_free>;
using Diff = Handle<git_diff, &libgit2::Functions::git_diff_free>;
using Patch = Handle<git_patch, &libgit2::Functions::git_patch_free>;
using Reference = Handle<git_reference, &libgit2::Functions::git_reference_free>;
using Signature = Handle<git_signature, &libgit2::Functions::git_signature_free>;
using DiffStats = Handle<git_diff_stats, &libgit2::Functions::git_diff_stats_free>;

struct Buffer {
  git_buf buf = GIT_BUF_INIT;
  Buffer() = default;
  ~Buffer() { libgit2::get().git_buf_dispose(&buf); }
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

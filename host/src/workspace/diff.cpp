#include "workspace/diff.hpp"

#include "workspace/confinement.hpp"
#include "workspace/git_handles.hpp"

#include <set>

namespace agentry::workspace {
namespace json = boost::json;
using core::ErrorCode;

namespace {

const char* status_name(git_delta_t status) {
  switch (status) {
    case GIT_DELTA_ADDED: return "added";
    case GIT_DELTA_DELETED: return "deleted";
    case GIT_DELTA_MODIFIED: return "modified";
    case GIT_DELTA_RENAMED: return "renamed";
    case GIT_DELTA_COPIED: return "copied";
    case GIT_DELTA_UNTRACKED: return "untracked";
    case GIT_DELTA_TYPECHANGE: return "typechange";
    case GIT_DELTA_CONFLICTED: return "conflicted";
    case GIT_DELTA_UNREADABLE: return "unreadable";
    case GIT_DELTA_IGNORED: return "ignored";
    default: return "modified";
  }
}

/// A ref or revision the caller named, as a commit. NOT_FOUND when it does not resolve.
core::Result<git::Commit> resolve_commit(git_repository* repo, const std::string& spec, const char* field) {
  if (spec.empty())
    return core::fail(ErrorCode::invalid_request, std::string("branch mode needs '") + field + "' (a ref)",
                      {{"field", field}});
  if (spec.front() == '-')
    return core::fail(ErrorCode::invalid_request, std::string("'") + field + "' must name a ref, not an option",
                      {{"field", field}});
  git_object* raw = nullptr;
  const int rc = libgit2::get().git_revparse_single(&raw, repo, spec.c_str());
  git::Object object(raw);
  if (rc == GIT_ENOTFOUND || rc == GIT_EAMBIGUOUS || rc == GIT_EINVALIDSPEC)
    return core::fail(ErrorCode::not_found,
                      std::string("no ref '") + spec + "' in the repository (" + field +
                          "); name an existing branch, tag or commit",
                      {{"field", field}, {"ref", spec}, {"reason", "ref_not_found"}});
  if (rc < 0)
    return core::fail(ErrorCode::validation, "cannot resolve '" + spec + "': " + git::last_error(),
                      {{"field", field}, {"ref", spec}});
  git_object* peeled = nullptr;
  if (libgit2::get().git_object_peel(&peeled, object.get(), GIT_OBJECT_COMMIT) < 0)
    return core::fail(ErrorCode::validation, "'" + spec + "' does not name a commit",
                      {{"field", field}, {"ref", spec}, {"reason", "not_a_commit"}});
  return git::Commit(reinterpret_cast<git_commit*>(peeled));
}

core::Result<git::Tree> tree_of(git_commit* commit) {
  git_tree* tree = nullptr;
  if (libgit2::get().git_commit_tree(&tree, commit) < 0) return core::fail(ErrorCode::internal, "commit tree: " + git::last_error());
  return git::Tree(tree);
}

struct Progress {
  Deadline deadline;
  bool expired = false;
};

int on_progress(const git_diff*, const char*, const char*, void* payload) {
  auto* progress = static_cast<Progress*>(payload);
  if (progress->deadline.passed()) {
    progress->expired = true;
    return -1;
  }
  return 0;
}

/// The paths where the work tree may differ from `tree`: where the index differs from
/// it, plus where the work tree differs from the index (untracked files included).
/// `options` limits both diffs as it limits the caller's.
core::Result<std::vector<std::string>> candidate_paths(git_repository* repo, git_tree* tree,
                                                       const git_diff_options& options) {
  git_index* raw_index = nullptr;
  if (libgit2::get().git_repository_index(&raw_index, repo) < 0)
    return core::fail(ErrorCode::validation, "cannot read the index: " + git::last_error());
  git::Index index(raw_index);
  std::set<std::string> paths;
  auto collect = [&paths](git_diff* diff) {
    const std::size_t n = libgit2::get().git_diff_num_deltas(diff);
    for (std::size_t i = 0; i < n; ++i) {
      const git_diff_delta* delta = libgit2::get().git_diff_get_delta(diff, i);
      if (delta->old_file.path) paths.insert(delta->old_file.path);
      if (delta->new_file.path) paths.insert(delta->new_file.path);
    }
  };
  git_diff_options quick = options;
  quick.flags &= ~static_cast<std::uint32_t>(GIT_DIFF_SHOW_UNTRACKED_CONTENT);
  git_diff* raw = nullptr;
  if (libgit2::get().git_diff_tree_to_index(&raw, repo, tree, index.get(), &quick) < 0) {
    libgit2::get().git_diff_free(raw);
    return core::fail(ErrorCode::validation, "git diff failed: " + git::last_error());
  }
  git::Diff staged(raw);
  collect(staged.get());
  raw = nullptr;
  if (libgit2::get().git_diff_index_to_workdir(&raw, repo, index.get(), &quick) < 0) {
    libgit2::get().git_diff_free(raw);
    return core::fail(ErrorCode::validation, "git diff failed: " + git::last_error());
  }
  git::Diff unstaged(raw);
  collect(unstaged.get());
  return std::vector<std::string>(paths.begin(), paths.end());
}

/// What stands in the patch for a file whose content is left out: git's first header
/// line, naming it, and why, with the reason the file and raw routes give.
std::string omitted_patch(const git_diff_delta& delta, const std::string& reason) {
  const std::string new_path = delta.new_file.path ? delta.new_file.path : delta.old_file.path;
  const std::string old_path = delta.old_file.path ? delta.old_file.path : new_path;
  const std::string why = reason == "hardlink" ? "it has more than one hard link, and another of its names may lie "
                                                 "outside the working directory"
                          : reason == "outside" ? "it leads outside the working directory (through a symlink)"
                                                : "the workspace routes do not read it";
  return "diff --git a/" + old_path + " b/" + new_path + "\nContent omitted (" + reason + "): " + why + "\n";
}

}  // namespace

std::string baseline_ref(const std::string& run_id) { return "refs/agentry/runs/" + run_id + "/base"; }

core::Result<DiffResult> diff_workspace(const std::filesystem::path& cwd, const DiffRequest& request,
                                        const Limits& limits) {
  auto root = Root::open(cwd);
  if (!root) return root.failure();
  auto repo = git::open_work_tree(root->path());
  if (!repo) return repo.failure();
  git_repository* r = repo->get();
  DiffResult out;
  const auto work_tree = git::work_tree_root(r);
  out.repo_root = work_tree.string();

  // A run in a subdirectory of its repository sees the changes under its cwd.
  std::string prefix;
  {
    const auto& real_cwd = root->path().native();
    const auto& top = work_tree.native();
    if (real_cwd.size() > top.size() && real_cwd.compare(0, top.size(), top) == 0 && real_cwd[top.size()] == '/')
      prefix = real_cwd.substr(top.size() + 1);
  }

  Progress progress{Deadline(limits.deadline)};
  git_diff_options options;
  libgit2::get().git_diff_options_init(&options, GIT_DIFF_OPTIONS_VERSION);
  options.flags |= GIT_DIFF_INCLUDE_TYPECHANGE;
  options.ignore_submodules = GIT_SUBMODULE_IGNORE_DIRTY;
  options.max_size = static_cast<git_off_t>(limits.max_preview_bytes * 4);  // larger files count as binary
  options.progress_cb = on_progress;
  options.payload = &progress;
  char* pathspec_items[1] = {nullptr};
  std::string pathspec_text = prefix + "/";
  if (!prefix.empty()) {
    pathspec_items[0] = pathspec_text.data();
    options.pathspec = {pathspec_items, 1};
    options.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
  }
  const std::uint32_t untracked = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS |
                                  GIT_DIFF_SHOW_UNTRACKED_CONTENT;

  // mode=run's path list; it outlives the diff, which may keep pointing at it.
  std::vector<std::string> run_paths;
  std::vector<char*> run_items;
  git_diff* raw_diff = nullptr;
  int rc = 0;
  switch (request.mode) {
    case DiffMode::working_tree: {
      out.mode = "working-tree";
      out.base_ref = "HEAD";
      git::Tree head_tree;
      git_object* head = nullptr;
      if (libgit2::get().git_revparse_single(&head, r, "HEAD^{commit}") == 0) {
        git::Object head_object(head);
        out.base_commit = git::oid_text(libgit2::get().git_object_id(head));
        auto tree = tree_of(reinterpret_cast<git_commit*>(head));
        if (!tree) return tree.failure();
        head_tree = std::move(*tree);
      }  // else an unborn branch: everything is new
      options.flags |= untracked;
      rc = libgit2::get().git_diff_tree_to_workdir_with_index(&raw_diff, r, head_tree.get(), &options);
      break;
    }
    case DiffMode::branch: {
      out.mode = "branch";
      out.base_ref = request.base;
      out.head_ref = request.head;
      auto base = resolve_commit(r, request.base, "base");
      if (!base) return base.failure();
      auto head = resolve_commit(r, request.head, "head");
      if (!head) return head.failure();
      out.base_commit = git::oid_text(libgit2::get().git_commit_id(base->get()));
      out.head_commit = git::oid_text(libgit2::get().git_commit_id(head->get()));
      git::Commit from;
      if (request.merge_base) {
        git_oid merge_base;
        const int found = libgit2::get().git_merge_base(&merge_base, r, libgit2::get().git_commit_id(base->get()), libgit2::get().git_commit_id(head->get()));
        if (found == GIT_ENOTFOUND)
          return core::fail(ErrorCode::validation,
                            "'" + request.base + "' and '" + request.head +
                                "' have no common ancestor; use comparison=direct",
                            {{"reason", "no_merge_base"}, {"base", request.base}, {"head", request.head}});
        if (found < 0) return core::fail(ErrorCode::internal, "merge base: " + git::last_error());
        out.merge_base = git::oid_text(&merge_base);
        git_commit* commit = nullptr;
        if (libgit2::get().git_commit_lookup(&commit, r, &merge_base) < 0)
          return core::fail(ErrorCode::internal, "merge base commit: " + git::last_error());
        from = git::Commit(commit);
      } else {
        from = std::move(*base);
      }
      auto from_tree = tree_of(from.get());
      if (!from_tree) return from_tree.failure();
      auto to_tree = tree_of(head->get());
      if (!to_tree) return to_tree.failure();
      rc = libgit2::get().git_diff_tree_to_tree(&raw_diff, r, from_tree->get(), to_tree->get(), &options);
      break;
    }
    case DiffMode::run: {
      out.mode = "run";
      out.base_ref = baseline_ref(request.run_id);
      git_oid id;
      if (libgit2::get().git_reference_name_to_id(&id, r, out.base_ref.c_str()) < 0)
        return core::fail(ErrorCode::not_found,
                          "run " + request.run_id +
                              " has no baseline: it has not started yet, or its working directory was not in a git "
                              "work tree when it did",
                          {{"runId", request.run_id}, {"reason", "no_baseline"}});
      out.base_commit = git::oid_text(&id);
      git_commit* commit = nullptr;
      if (libgit2::get().git_commit_lookup(&commit, r, &id) < 0)
        return core::fail(ErrorCode::validation, "the baseline of run " + request.run_id + " is unreadable: " +
                                                     git::last_error());
      git::Commit base(commit);
      auto tree = tree_of(base.get());
      if (!tree) return tree.failure();
      options.flags |= untracked;
      // Comparing a tree with the work tree directly hashes every file (a tree has no
      // stat cache). Only paths where the index differs from the baseline, or the work
      // tree from the index (stat cache), can differ; the rest are equal on both sides.
      auto candidates = candidate_paths(r, tree->get(), options);
      if (!candidates) {
        if (progress.expired) {
          out.truncated = true;
          out.truncated_reason = "deadline";
          return out;
        }
        return candidates.failure();
      }
      if (candidates->empty()) return out;  // nothing changed (an empty pathspec would mean everything)
      run_paths = std::move(*candidates);
      for (auto& path : run_paths) run_items.push_back(path.data());
      options.pathspec = {run_items.data(), run_items.size()};
      options.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;  // an exact, sorted path list
      rc = libgit2::get().git_diff_tree_to_workdir(&raw_diff, r, tree->get(), &options);
      break;
    }
  }
  git::Diff diff(raw_diff);
  if (rc < 0) {
    if (progress.expired) {
      out.truncated = true;
      out.truncated_reason = "deadline";
      return out;
    }
    return core::fail(ErrorCode::validation, "git diff failed: " + git::last_error());
  }

  git_diff_find_options find;
  libgit2::get().git_diff_find_options_init(&find, GIT_DIFF_FIND_OPTIONS_VERSION);
  find.flags = GIT_DIFF_FIND_RENAMES | GIT_DIFF_FIND_COPIES;
  if (request.mode != DiffMode::branch) find.flags |= GIT_DIFF_FIND_FOR_UNTRACKED;
  if (libgit2::get().git_diff_find_similar(diff.get(), &find) < 0)
    return core::fail(ErrorCode::validation, "git rename detection failed: " + git::last_error());

  // The work tree's side of a file gets the confinement of the file and raw routes.
  // Branch mode compares two commits: it reads git's objects, never the work tree.
  auto refusal = [&](const git_diff_delta& delta) -> std::optional<std::string> {
    if (request.mode == DiffMode::branch || !delta.new_file.path) return std::nullopt;
    std::string_view path = delta.new_file.path;
    if (!prefix.empty()) {
      if (path.size() <= prefix.size() || path.substr(0, prefix.size()) != prefix || path[prefix.size()] != '/')
        return "outside";
      path.remove_prefix(prefix.size() + 1);
    }
    return root->content_refusal(std::string(path));
  };
  const std::size_t count = libgit2::get().git_diff_num_deltas(diff.get());
  bool patch_full = false;
  for (std::size_t i = 0; i < count; ++i) {
    if (out.files.size() >= limits.max_diff_files) {
      out.truncated = true;
      out.truncated_reason = "files";
      break;
    }
    if (progress.deadline.passed()) {
      out.truncated = true;
      out.truncated_reason = "deadline";
      break;
    }
    const git_diff_delta* delta = libgit2::get().git_diff_get_delta(diff.get(), i);
    DiffFile file;
    file.path = delta->new_file.path ? delta->new_file.path : (delta->old_file.path ? delta->old_file.path : "");
    if ((delta->status == GIT_DELTA_RENAMED || delta->status == GIT_DELTA_COPIED) && delta->old_file.path)
      file.old_path = delta->old_file.path;
    // A file the baseline did not have is new to the run, whether or not it is staged.
    file.status = request.mode == DiffMode::run && delta->status == GIT_DELTA_UNTRACKED ? "added"
                                                                                        : status_name(delta->status);
    // A nested repository or an untracked directory git does not descend into.
    const bool directory = !file.path.empty() && file.path.back() == '/';
    file.omitted_reason = refusal(*delta);
    git_patch* raw_patch = nullptr;
    git::Patch patch;
    if (!directory && !file.omitted_reason && delta->status != GIT_DELTA_UNREADABLE &&
        libgit2::get().git_patch_from_diff(&raw_patch, diff.get(), i) == 0)
      patch = git::Patch(raw_patch);
    if (patch) {  // asked again once read: a file made a hard link meanwhile is not shown either
      file.omitted_reason = refusal(*delta);
      if (file.omitted_reason) patch.reset();
    }
    const git_diff_delta* loaded = patch ? libgit2::get().git_patch_get_delta(patch.get()) : delta;
    file.binary = !file.omitted_reason && (loaded->flags & GIT_DIFF_FLAG_BINARY) != 0;
    if (patch && !file.binary) {
      std::size_t additions = 0, deletions = 0;
      if (libgit2::get().git_patch_line_stats(nullptr, &additions, &deletions, patch.get()) == 0) {
        file.additions = additions;
        file.deletions = deletions;
        out.totals.additions += additions;
        out.totals.deletions += deletions;
      }
    }
    if (request.with_patch && !patch_full) {
      git::Buffer text;
      const std::string omitted = file.omitted_reason ? omitted_patch(*delta, *file.omitted_reason) : "";
      std::string_view piece = omitted;
      if (patch && libgit2::get().git_patch_to_buf(&text.buf, patch.get()) == 0) piece = {text.buf.ptr, text.buf.size};
      if (out.patch.size() + piece.size() > limits.max_patch_bytes) {
        patch_full = true;  // whole file patches only: the rest is listed, not shown
        out.truncated = true;
        out.truncated_reason = "patch_bytes";
      } else {
        out.patch.append(piece);
      }
    }
    out.files.push_back(std::move(file));
  }
  out.totals.files = out.files.size();
  return out;
}

std::optional<DiffTotals> run_diffstat(const std::filesystem::path& cwd, const std::string& run_id,
                                       const Limits& limits) {
  DiffRequest request;
  request.mode = DiffMode::run;
  request.run_id = run_id;
  request.with_patch = false;
  auto result = diff_workspace(cwd, request, limits);
  if (!result) return std::nullopt;
  return result->totals;
}

json::object to_json(const DiffTotals& totals) {
  // Signed, as every count a client parses back from the wire.
  return {{"files", static_cast<std::int64_t>(totals.files)},
          {"additions", static_cast<std::int64_t>(totals.additions)},
          {"deletions", static_cast<std::int64_t>(totals.deletions)}};
}

json::object to_json(const DiffResult& result) {
  auto text_or_null = [](const std::string& s) { return s.empty() ? json::value(nullptr) : json::value(s); };
  json::array files;
  for (const auto& f : result.files) {
    json::object file{{"path", f.path}, {"status", f.status}, {"binary", f.binary}};
    file["omittedReason"] = f.omitted_reason ? json::value(*f.omitted_reason) : json::value(nullptr);
    file["oldPath"] = f.old_path ? json::value(*f.old_path) : json::value(nullptr);
    file["additions"] = f.additions ? json::value(static_cast<std::int64_t>(*f.additions)) : json::value(nullptr);
    file["deletions"] = f.deletions ? json::value(static_cast<std::int64_t>(*f.deletions)) : json::value(nullptr);
    files.push_back(std::move(file));
  }
  json::object out{{"mode", result.mode},
                   {"repoRoot", result.repo_root},
                   {"base", json::object{{"ref", text_or_null(result.base_ref)}, {"commit", text_or_null(result.base_commit)}}},
                   {"files", std::move(files)},
                   {"patch", result.patch},
                   {"stats", to_json(result.totals)},
                   {"truncated", result.truncated}};
  out["head"] = result.mode == "branch"
                    ? json::value(json::object{{"ref", result.head_ref}, {"commit", result.head_commit}})
                    : json::value(json::object{{"ref", nullptr}, {"commit", nullptr}, {"workTree", true}});
  out["mergeBase"] = text_or_null(result.merge_base);
  out["truncatedReason"] = result.truncated ? json::value(result.truncated_reason) : json::value(nullptr);
  return out;
}

}  // namespace agentry::workspace

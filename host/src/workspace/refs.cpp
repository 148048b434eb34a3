#include "workspace/refs.hpp"

#include "workspace/git_handles.hpp"

#include <algorithm>

namespace agentry::workspace {
namespace json = boost::json;

namespace {

/// The commit a reference leads to (through annotated tags), or "" when none.
std::string commit_of(git_reference* ref) {
  git_object* raw = nullptr;
  if (libgit2::get().git_reference_peel(&raw, ref, GIT_OBJECT_COMMIT) < 0) return {};
  git::Object object(raw);
  return git::oid_text(libgit2::get().git_object_id(object.get()));
}

struct Collector {
  RefList& out;
  std::size_t limit;

  void add(std::vector<NamedRef>& into, git_reference* ref) {
    if (into.size() >= limit) {
      out.truncated = true;
      return;
    }
    into.push_back({libgit2::get().git_reference_shorthand(ref), commit_of(ref)});
  }
};

json::array refs_json(const std::vector<NamedRef>& refs) {
  json::array out;
  out.reserve(refs.size());
  for (const auto& r : refs)
    out.push_back(json::object{{"name", r.name}, {"commit", r.commit.empty() ? json::value() : json::value(r.commit)}});
  return out;
}

}  // namespace

core::Result<RefList> list_refs(const std::filesystem::path& cwd, std::size_t limit) {
  auto repo = git::open_work_tree(cwd);
  if (!repo) return repo.failure();
  RefList out;
  out.repo_root = git::work_tree_root(repo->get()).string();

  git_reference* head_raw = nullptr;
  if (libgit2::get().git_repository_head(&head_raw, repo->get()) == 0) {
    git::Reference head(head_raw);
    out.head_commit = commit_of(head.get());
    if (libgit2::get().git_reference_is_branch(head.get())) out.head_branch = libgit2::get().git_reference_shorthand(head.get());
  } else if (libgit2::get().git_repository_head_unborn(repo->get()) == 1) {
    // An unborn branch: HEAD names it, but nothing is committed yet.
    git_reference* symbolic = nullptr;
    if (libgit2::get().git_reference_lookup(&symbolic, repo->get(), "HEAD") == 0) {
      git::Reference ref(symbolic);
      if (const char* target = libgit2::get().git_reference_symbolic_target(ref.get()); target) {
        std::string name = target;
        if (name.starts_with("refs/heads/")) out.head_branch = name.substr(11);
      }
    }
  }

  git_reference_iterator* raw_iter = nullptr;
  if (libgit2::get().git_reference_iterator_new(&raw_iter, repo->get()) < 0)
    return core::fail(core::ErrorCode::internal, "listing refs: " + git::last_error());
  const git::Handle<git_reference_iterator, &libgit2::Functions::git_reference_iterator_free> iter(raw_iter);
  // The iterator's order is the backend's; collect everything (bounded per kind) and sort.
  Collector collect{out, limit};
  git_reference* raw_ref = nullptr;
  while (libgit2::get().git_reference_next(&raw_ref, iter.get()) == 0) {
    git::Reference ref(raw_ref);
    const std::string name = libgit2::get().git_reference_name(ref.get());
    if (libgit2::get().git_reference_type(ref.get()) == GIT_REFERENCE_SYMBOLIC) continue;  // origin/HEAD and the like
    if (name.starts_with("refs/heads/")) collect.add(out.branches, ref.get());
    else if (name.starts_with("refs/remotes/")) collect.add(out.remotes, ref.get());
    else if (name.starts_with("refs/tags/")) collect.add(out.tags, ref.get());
  }
  for (auto* list : {&out.branches, &out.remotes, &out.tags})
    std::sort(list->begin(), list->end(), [](const NamedRef& a, const NamedRef& b) { return a.name < b.name; });
  return out;
}

json::object to_json(const RefList& refs) {
  json::object head{{"branch", refs.head_branch ? json::value(*refs.head_branch) : json::value()},
                    {"commit", refs.head_commit.empty() ? json::value() : json::value(refs.head_commit)}};
  return json::object{{"repoRoot", refs.repo_root},
                      {"head", std::move(head)},
                      {"branches", refs_json(refs.branches)},
                      {"remotes", refs_json(refs.remotes)},
                      {"tags", refs_json(refs.tags)},
                      {"truncated", refs.truncated}};
}

}  // namespace agentry::workspace

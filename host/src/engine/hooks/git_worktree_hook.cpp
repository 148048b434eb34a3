#include "engine/hooks/git_worktree_hook.hpp"

#include "core/log.hpp"
#include "engine/hooks/hook_templating.hpp"
#include "store/hook_audit_repository.hpp"
#include "store/store.hpp"
#include "store/transaction.hpp"
#include "workspace/named_worktree.hpp"
#include "workspace/worktree.hpp"

#include <boost/json.hpp>

namespace agentry::engine {
namespace json = boost::json;
namespace {

/// agent-runner's form in the run's worktree record; agentry's records have no `form`.
constexpr std::string_view repo_form = "agent-runner";

std::string member(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

bool flag(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v && v->is_bool() && v->as_bool();
}

bool is_repo_form(const json::object& record) { return member(record, "form") == repo_form; }

std::optional<json::object> existing_record(const core::Run& run, const HookServices& services) {
  auto existing = services.db.read([&](store::Transaction& c) -> core::Result<std::optional<json::object>> {
    return run_worktree(c, run.id);
  });
  if (!existing) return std::nullopt;
  return *existing;
}

void run_agentry_form(const core::Run& run, const core::HookSpec& hook, const HookServices& services,
                      core::HookAudit& audit, HookPhaseResult& result) {
  // A run started again after a reset keeps the worktree it made the first time.
  if (auto existing = existing_record(run, services); existing && !is_repo_form(*existing)) {
    const std::string path = member(*existing, "path");
    std::error_code ec;
    if (!path.empty() && std::filesystem::is_directory(path, ec)) {
      audit.outcome = "ok";
      audit.message = "kept the run's worktree " + path;
      result.worktree = *existing;
      return;
    }
  }
  std::string base = "HEAD";
  if (auto* b = hook.options.if_contains("base"); b && b->is_string()) base = std::string(b->as_string());
  auto added = workspace::add_run_worktree(run.cwd, run.id, base, services.state_dir / "worktrees");
  if (!added) {
    audit.outcome = "failed";
    audit.message = added.error().message;
    return;
  }
  audit.outcome = "ok";
  audit.message = "worktree " + added->path + " on branch " + added->branch;
  result.worktree = json::object{{"repoRoot", added->repo_root}, {"path", added->path}, {"cwd", added->cwd},
                                 {"branch", added->branch},      {"baseCommit", added->base_commit}};
}

workspace::NamedWorktree named_from(const json::object& record) {
  workspace::NamedWorktree wt;
  wt.repo_root = member(record, "repoRoot");
  wt.path = member(record, "path");
  wt.branch = member(record, "branch");
  wt.base_commit = member(record, "baseCommit");
  wt.name = member(record, "name");
  wt.created_worktree = flag(record, "createdWorktree");
  wt.created_branch = flag(record, "createdBranch");
  return wt;
}

std::string canonical(const std::string& path) {
  std::error_code ec;
  std::string out = std::filesystem::weakly_canonical(path, ec).string();
  if (ec) out = std::filesystem::path(path).lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

/// What the run made earlier and this hook would lose track of (the record holds one
/// worktree): "" when nothing.
std::string would_orphan(const json::object& before, const workspace::NamedWorktreeRequest& request) {
  if (!is_repo_form(before)) return "agentry's worktree " + member(before, "path") + " (branch " + member(before, "branch") + ")";
  if (flag(before, "createdWorktree") && member(before, "path") != canonical(request.path.string()))
    return "the worktree " + member(before, "path");
  if (flag(before, "createdBranch") && member(before, "branch") != request.branch)
    return "the branch " + member(before, "branch");
  return {};
}

void run_repo_form(const core::Run& run, const core::HookSpec& hook, const HookServices& services,
                   core::HookAudit& audit, HookPhaseResult& result) {
  auto fail = [&](std::string message) {
    audit.outcome = "failed";
    audit.message = std::move(message);
  };
  const auto before = existing_record(run, services);
  // prepare again (a reset run started again): what the first prepare made stands, as
  // agent-runner reuses its frozen prepare output; its values, rendered now, would name
  // places relative to the cwd it moved.
  if (hook.phase == core::HookPhase::prepare && before && is_repo_form(*before)) {
    const std::string path = member(*before, "path");
    std::error_code ec;
    if (!path.empty() && std::filesystem::is_directory(path, ec)) {
      audit.outcome = "ok";
      audit.message = "kept the run's worktree " + path;
      result.worktree = *before;
      result.worktree_path_var = path;
      return;
    }
  }
  std::vector<std::string> unknown;
  const auto options = render_hook_options(hook.options, hook_template_context(run, services.state_dir), unknown);
  if (!unknown.empty())
    return fail("with: " + describe_unknown_hook_keys(unknown) +
                "; its values may name the run's vars and run_id, run_group_id, cwd, repo_root, state_dir, "
                "assignment_name");
  workspace::NamedWorktreeRequest request;
  request.repo = member(options, "repo");
  request.from = member(options, "from");
  request.branch = member(options, "branch");
  request.path = member(options, "path");
  const std::string collision = member(options, "collision");
  request.collision = collision == "reuse"     ? workspace::WorktreeCollision::reuse
                      : collision == "replace" ? workspace::WorktreeCollision::replace
                                               : workspace::WorktreeCollision::fail;
  if (before && request.path.is_absolute())
    if (auto lost = would_orphan(*before, request); !lost.empty())
      return fail("this run already made " + lost + ", which deleting the run removes; a run keeps one worktree, so "
                  "it cannot move to " + request.path.string() + " on branch " + request.branch);
  auto made = workspace::ensure_named_worktree(request);
  if (!made) return fail(made.error().message);

  json::object record{{"form", repo_form},          {"repoRoot", made->repo_root},
                      {"path", made->path},         {"cwd", made->path},
                      {"branch", made->branch},     {"baseCommit", made->base_commit},
                      {"name", made->name},         {"createdWorktree", made->created_worktree},
                      {"createdBranch", made->created_branch}};
  // Found again on a later attempt: still what the run made the first time.
  if (before && is_repo_form(*before) && member(*before, "path") == made->path) {
    if (!made->created_worktree && flag(*before, "createdWorktree")) {
      record["createdWorktree"] = true;
      record["name"] = member(*before, "name");
    }
    if (!made->created_branch && flag(*before, "createdBranch") && member(*before, "branch") == made->branch) {
      record["createdBranch"] = true;
      record["baseCommit"] = member(*before, "baseCommit");
    }
  }
  audit.outcome = "ok";
  audit.message = std::string(made->created_worktree ? (made->replaced ? "replaced the worktree at " : "created the worktree ")
                                                     : "reused the worktree ") +
                  made->path + (made->created_branch ? " on the new branch " : " on the existing branch ") +
                  made->branch + (made->created_branch ? " from " + request.from : std::string());
  result.worktree = std::move(record);
  if (hook.phase == core::HookPhase::prepare) result.worktree_path_var = made->path;
}

}  // namespace

void run_git_worktree(const core::Run& run, const core::HookSpec& hook, const HookServices& services,
                      core::HookAudit& audit, HookPhaseResult& result) {
  if (core::is_git_worktree_repo_form(hook)) run_repo_form(run, hook, services, audit, result);
  else run_agentry_form(run, hook, services, audit, result);
}

std::optional<json::object> run_worktree(store::Transaction& c, const std::string& run_id) {
  auto text = c.worktrees().get(run_id);
  if (!text) return std::nullopt;
  boost::system::error_code ec;
  auto value = json::parse(*text, ec);
  if (ec || !value.is_object()) return std::nullopt;
  return value.as_object();
}

void remove_worktree(const json::object& worktree, const std::string& run_id) {
  if (is_repo_form(worktree)) {
    // Only what the run created: a reused branch or worktree is the user's.
    const auto wt = named_from(worktree);
    auto removed = workspace::remove_named_worktree(wt);
    if (!removed) {
      core::log_warn("cannot remove the run's worktree",
                     {{"runId", run_id}, {"path", wt.path}, {"error", removed.error().message}});
      return;
    }
    core::log_info("the run's worktree on deletion", {{"runId", run_id},
                                                      {"path", wt.path},
                                                      {"worktreeRemoved", removed->worktree_removed ? "true" : "false"},
                                                      {"branchDeleted", removed->branch_deleted ? "true" : "false"},
                                                      {"branchKept", removed->branch_kept ? "true" : "false"}});
    return;
  }
  workspace::RunWorktree wt{member(worktree, "repoRoot"), member(worktree, "path"), member(worktree, "cwd"),
                            member(worktree, "branch"), member(worktree, "baseCommit")};
  auto removed = workspace::remove_run_worktree(wt, run_id);
  if (!removed) {
    core::log_warn("cannot remove the run's worktree", {{"runId", run_id}, {"path", wt.path}, {"error", removed.error().message}});
    return;
  }
  core::log_info("removed the run's worktree", {{"runId", run_id},
                                                {"path", wt.path},
                                                {"branchDeleted", removed->branch_deleted ? "true" : "false"},
                                                {"branchKept", removed->branch_kept ? "true" : "false"}});
}

}  // namespace agentry::engine

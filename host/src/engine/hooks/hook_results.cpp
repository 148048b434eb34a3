// Recording what a phase's hooks did, in the caller's write transaction: their audits,
// and the run's name, note, pin, worktree, vars, hook state and task changes they asked
// for, each audited with actor `hook` (hook_runner.hpp record_hook_results).

#include "engine/hooks/hook_runner.hpp"
#include "engine/hooks/hook_process.hpp"

#include "core/clock.hpp"
#include "core/utf8.hpp"
#include "engine/mutation_support.hpp"
#include "store/hook_audit_repository.hpp"
#include "store/task_repository.hpp"
#include "store/transaction.hpp"

#include <boost/json.hpp>

namespace agentry::engine {
namespace json = boost::json;
namespace {

constexpr std::size_t max_task_notes_bytes = 256 * 1024;  // as a task set's (tasks/task_commands.cpp)
/// `mutate.patchTasks`: each a task update by actor `hook`, audited like one. A task
/// gone since the hook ran is skipped. Task patches run no taskTransition hooks.
bool apply_task_patches(store::Transaction& c, const core::Run& run, const std::vector<HookTaskPatch>& patches) {
  bool any = false;
  for (const auto& patch : patches) {
    auto task = c.tasks().get(run.id, patch.task_id);
    if (!task) continue;
    json::object changed;
    if (patch.status && *patch.status != task->status) {
      changed["status"] = json::object{{"from", core::to_string(task->status)}, {"to", core::to_string(*patch.status)}};
      task->status = *patch.status;
    }
    std::string notes = task->notes;
    if (patch.notes_replace) notes = *patch.notes_replace;
    if (patch.notes_append) notes += (notes.empty() || notes.back() == '\n' ? "" : "\n") + *patch.notes_append;
    if (notes.size() > max_task_notes_bytes) notes.resize(max_task_notes_bytes);
    notes = core::sanitize_utf8(notes);
    if (notes != task->notes) {
      task->notes = notes;
      changed["notes"] = json::object{{"length", notes.size()}};
    }
    if (changed.empty()) continue;
    task->updated_at = core::now_iso8601();
    c.tasks().update(*task);
    detail::append_audit(c, run.id, "task.updated", hook_actor, {{"taskId", patch.task_id}, {"changed", changed}});
    any = true;
  }
  return any;
}

}  // namespace

bool record_hook_results(store::Transaction& c, core::Run& run, const HookPhaseResult& result) {
  c.hook_audits().append(run.id, result.audits);
  bool changed = false;
  if (result.name && run.name != result.name) {
    run.name = result.name;
    detail::append_audit(c, run.id, "run.renamed", hook_actor, {{"name", *result.name}});
    changed = true;
  }
  if (result.note && run.note != result.note) {
    run.note = result.note;
    detail::append_audit(c, run.id, "run.note_set", hook_actor, {{"present", true}, {"length", result.note->size()}});
    changed = true;
  }
  if (result.pinned && run.pinned != *result.pinned) {
    run.pinned = *result.pinned;
    detail::append_audit(c, run.id, "run.pinned_set", hook_actor, {{"pinned", *result.pinned}});
    changed = true;
  }
  if (result.worktree) {
    const auto& wt = *result.worktree;
    const bool kept = c.worktrees().get(run.id) == json::serialize(wt);
    c.worktrees().set(run.id, json::serialize(wt));
    run.cwd = std::string(wt.at("cwd").as_string());
    run.repo_root = std::string(wt.at("path").as_string());
    json::object data{{"path", wt.at("path")}, {"branch", wt.at("branch")}, {"baseCommit", wt.at("baseCommit")}};
    // agent-runner's form says what the run made and what it found (the user's).
    const auto* created = wt.if_contains("createdWorktree");
    if (created) data["createdWorktree"] = *created;
    if (const auto* branch = wt.if_contains("createdBranch")) data["createdBranch"] = *branch;
    const char* type = kept                                                     ? "run.worktree_kept"
                       : created && created->is_bool() && !created->as_bool() ? "run.worktree_reused"
                                                                                : "run.worktree_created";
    detail::append_audit(c, run.id, type, hook_actor, std::move(data));
    changed = true;
  }
  if (result.worktree_path_var) {
    const json::value value(*result.worktree_path_var);
    const auto* now = run.frozen.vars.if_contains("worktree_path");
    if (!now || *now != value) {
      run.frozen.vars["worktree_path"] = value;
      detail::append_audit(c, run.id, "run.vars_set", hook_actor, {{"keys", json::array{"worktree_path"}}});
      changed = true;
    }
  }
  if (!result.state.empty()) {
    // Merged into the state as stored now: another phase's hooks may have written since.
    auto state = run_hook_data(c, run.id);
    json::array keys;
    for (const auto& [key, value] : result.state) {
      state[key] = value;
      keys.emplace_back(key);
    }
    c.hook_data().set(run.id, json::serialize(state));
    detail::append_audit(c, run.id, "run.hook_data_set", hook_actor, {{"keys", std::move(keys)}});
    changed = true;
  }
  if (apply_task_patches(c, run, result.patch_tasks)) changed = true;
  if (changed) detail::touch(run);
  return changed;
}

json::object run_hook_data(store::Transaction& c, const std::string& run_id) {
  auto text = c.hook_data().get(run_id);
  if (!text) return {};
  boost::system::error_code ec;
  auto value = json::parse(*text, ec);
  if (ec || !value.is_object()) return {};
  return value.as_object();
}

}  // namespace agentry::engine

// Engine: re-initializing and reconfiguring initialized runs. Both resolve definitions
// (or the run's frozen specs) into inputs again, then write atomically.

#include "engine/engine.hpp"
#include "engine/mutate.hpp"

#include "core/clock.hpp"
#include "core/ids.hpp"
#include "engine/ad_hoc_agent.hpp"
#include "engine/creation_support.hpp"
#include "engine/dependencies/dependency_checks.hpp"
#include "engine/hooks/prepare_at_init.hpp"
#include "engine/mutation_support.hpp"
#include "engine/pending_init.hpp"
#include "engine/run_inputs.hpp"
#include "store/run_repository.hpp"
#include "store/store.hpp"
#include "store/task_repository.hpp"

namespace agentry::engine {
namespace json = boost::json;
using core::Run;
using detail::check_call_depth;
using detail::log_unknown_template_keys;
using detail::parent_info;
using detail::with_trust_details;

namespace {

/// Re-initialization may change what a run does, never where it sits: CONFLICT (naming
/// the status) unless it is initialized and not archived.
core::Result<void> check_reinit_allowed(const Run& run) {
  std::string why;
  if (run.archived)
    why = "it is archived";
  else if (run.status != core::RunStatus::initialized)
    why = "only an initialized run can be re-initialized; this run is " + std::string(core::to_string(run.status));
  if (why.empty()) return core::ok();
  return core::fail(core::ErrorCode::conflict, "cannot re-initialize run " + run.id + ": " + why,
                    {{"runId", run.id}, {"operation", "reinit"}, {"status", core::to_string(run.status)},
                     {"archived", run.archived}});
}

/// What a re-initialization keeps may not be asked to change: naming it (other than as
/// it is) is a mistake the caller should hear about rather than see ignored.
core::Result<void> check_reinit_keeps(const Run& run, const InitRequest& request) {
  auto keeps = [&](const char* field, const std::string& what) {
    return core::fail(core::ErrorCode::validation,
                      std::string("field '") + field + "': a re-initialized run keeps its " + what,
                      {{"field", field}, {"runId", run.id}});
  };
  if (request.parent_run_id && request.parent_run_id != run.parent_run_id) return keeps("parentRunId", "parent");
  if (request.run_group_id && *request.run_group_id != run.run_group_id) return keeps("runGroupId", "group");
  if (!request.dependencies.empty())
    return keeps("dependencies", "dependencies (edit them with runs.addDependency / runs.removeDependency)");
  return core::ok();
}

}  // namespace

core::Result<Run> Engine::reinit(const std::string& run_id, InitRequest request, const Actor& actor) {
  auto pending = plan_reinit(run_id, std::move(request), actor);
  if (!pending) return pending.failure();
  return finish_reinit(**pending);
}

core::Result<std::shared_ptr<PendingInit>> Engine::plan_reinit(const std::string& run_id, InitRequest request,
                                                               const Actor& actor) {
  auto current = db_.read([&](store::Transaction& c) { return detail::load_run(c, run_id); });
  if (!current) return current.failure();
  if (auto ok = check_reinit_allowed(*current); !ok) return ok.failure();
  if (auto ok = check_reinit_keeps(*current, request); !ok) return ok.failure();
  // Unnamed definitions are the run's own files, read again as they are now; an ad-hoc
  // agent, which has none, is made again from what defined it.
  if (request.agent.empty() && is_ad_hoc(current->frozen))
    keep_ad_hoc_agent(current->frozen, request.overrides);
  else if (request.agent.empty())
    request.agent = current->frozen.agent_source_path.empty() ? current->frozen.agent_name
                                                              : current->frozen.agent_source_path;
  if (!request.assignment && !current->frozen.assignment_name.empty())
    request.assignment = current->frozen.assignment_source_path.empty() ? current->frozen.assignment_name
                                                                        : current->frozen.assignment_source_path;
  if (!request.caller_cwd && !request.overrides.cwd) request.caller_cwd = current->cwd;
  request.parent_run_id = current->parent_run_id;
  // The depth was checked when the run was created; the parent's vars are read again.
  auto parent = parent_info(db_, current->parent_run_id, config_.max_call_depth);
  if (!parent) return parent.failure();

  auto pending = std::make_shared<PendingInit>();
  pending->reinit_of = run_id;
  pending->actor = actor;
  pending->run = *current;
  if (*parent) {
    pending->parent_vars = (*parent)->vars;
    pending->parent_var_sources = (*parent)->var_sources;
  }
  std::optional<std::filesystem::path> definition_cwd;
  if (request.definition_cwd) definition_cwd = std::filesystem::path(*request.definition_cwd);
  pending->context = RunInputContext{projects_.roots_for(definition_cwd), config_.config_dir, config_.state_dir,
                                     current->id, current->run_group_id,
                                     *parent ? &pending->parent_vars : nullptr,
                                     *parent ? &pending->parent_var_sources : nullptr,
                                     current->parent_run_id.value_or("")};
  auto& context = pending->context;
  context.cwd_only_elsewhere = [this](const std::string& cwd) { return placement_.only_elsewhere(db_, cwd); };
  context.agent_runner_cmd = agent_runner_cmd_;
  auto inputs = resolve_run_inputs(request, context, backends_);
  if (!inputs) return with_trust_details(inputs.failure(), context.roots);
  pending->inputs = std::move(*inputs);
  pending->request = std::move(request);
  if (!pending->runs_prepare_hooks())
    if (auto ok = check_prepared_vars(pending->inputs.frozen); !ok) return ok.failure();
  return pending;
}

// As agent-runner does, a re-initialization prepares the run afresh: its module prepare
// hooks run again on the re-resolved inputs, and the hook data becomes theirs.
core::Result<Run> Engine::finish_reinit(PendingInit& pending) {
  auto prepared = prepare_pending(pending);
  if (!prepared) return prepared.failure();
  const std::string run_id = *pending.reinit_of;
  const InitRequest& request = pending.request;
  auto* inputs = &pending.inputs;
  auto reinitialized = mutate<Run>(run_id, [&](store::Transaction& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    // Checked again in the write: the run may have moved on since the read above.
    if (auto ok = check_reinit_allowed(*run); !ok) return ok.failure();
    const bool notify_parent = run->parent_run_id.has_value() &&
                               request.notify_parent_on_complete.value_or(run->frozen.notify_parent_on_complete);
    json::object data{{"agent", inputs->frozen.agent_name},
                      {"assignment", inputs->frozen.assignment_name},
                      {"backend", inputs->frozen.backend},
                      {"cwd", inputs->cwd},
                      {"previousTaskCount", c.tasks().list(run_id).size()},
                      {"taskCount", inputs->tasks.size()},
                      {"messageChanged", inputs->frozen.message != run->frozen.message}};
    if (!inputs->unknown_template_keys.empty()) data["unknownTemplateKeys"] = to_json(inputs->unknown_template_keys);
    if (!prepared->audits.empty()) data["prepareHooks"] = prepared->audits.size();
    run->frozen = std::move(inputs->frozen);
    run->frozen.notify_parent_on_complete = notify_parent;
    run->cwd = inputs->cwd;
    run->repo_root = inputs->repo_root;
    if (request.name) run->name = request.name;
    if (request.backend_session_id) run->backend_session_id = request.backend_session_id;
    if (prepared->note) run->note = prepared->note;
    if (prepared->pinned) run->pinned = *prepared->pinned;
    // The tasks are the definitions' again: the old ones (none has run) go.
    c.tasks().remove_all(run_id);
    const auto now = core::now_iso8601();
    for (auto task : inputs->tasks) {
      task.run_id = run_id;
      task.created_at = task.updated_at = now;
      c.tasks().insert(task);
    }
    record_prepare_at_init(c, run_id, *prepared);
    detail::save_with_audit(c, *run, "run.reinitialized", pending.actor, std::move(data));
    return run;
  });
  if (reinitialized) log_unknown_template_keys(run_id, inputs->unknown_template_keys);
  return reinitialized;
}

core::Result<Run> Engine::reconfigure(const std::string& run_id, const ReconfigureRequest& request,
                                      const Actor& actor) {
  auto current = db_.read([&](store::Transaction& c) { return detail::load_run(c, run_id); });
  if (!current) return current.failure();
  // The depth was checked when the run was created; reconfigure only needs the vars.
  auto parent = parent_info(db_, current->parent_run_id, config_.max_call_depth);
  if (!parent) return parent.failure();

  std::vector<UnknownTemplateKey> unknown_keys;
  auto reconfigured = mutate<Run>(run_id, [&](store::Transaction& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (auto ok = detail::check_allowed(core::Operation::reconfigure, *run, "reconfigure"); !ok) return ok.failure();
    RunInputContext context{{}, config_.config_dir, config_.state_dir, run->id, run->run_group_id,
                            *parent ? &(*parent)->vars : nullptr, *parent ? &(*parent)->var_sources : nullptr,
                            run->parent_run_id.value_or("")};
    context.agent_runner_cmd = agent_runner_cmd_;
    auto before_vars = run->frozen.vars;
    auto before_message = run->frozen.message;
    auto texts = reconfigure_inputs(run->frozen, request, context, run->cwd);
    if (!texts) return texts.failure();
    unknown_keys = texts->unknown_keys;
    // Tasks from the assignment follow the new vars; tasks the user added or already
    // edited away from pending keep their text.
    for (const auto& rendered : texts->tasks) {
      auto task = c.tasks().get(run_id, rendered.id);
      if (!task || task->status != core::TaskStatus::pending) continue;
      if (task->title == rendered.title && task->body == rendered.body) continue;
      task->title = rendered.title;
      task->body = rendered.body;
      task->updated_at = core::now_iso8601();
      c.tasks().update(*task);
    }
    json::array changed;
    for (const auto& [name, value] : run->frozen.vars) {
      auto* old = before_vars.if_contains(name);
      if (!old || *old != value) changed.emplace_back(name);
    }
    json::object data{{"changedVars", std::move(changed)}, {"messageChanged", before_message != run->frozen.message}};
    if (!unknown_keys.empty()) data["unknownTemplateKeys"] = to_json(unknown_keys);
    detail::save_with_audit(c, *run, "run.reconfigured", actor, std::move(data));
    return run;
  });
  if (reconfigured) log_unknown_template_keys(run_id, unknown_keys);
  return reconfigured;
}

}  // namespace agentry::engine

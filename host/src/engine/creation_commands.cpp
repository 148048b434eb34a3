// Engine: creating runs (init, start), re-initializing and reconfiguring initialized
// ones. All resolve definitions into frozen inputs (run_inputs.cpp), then write atomically.

#include "engine/engine.hpp"
#include "engine/mutate.hpp"

#include "definitions/project_trust.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "core/ids.hpp"
#include "engine/parent_completion/child_resume_limits.hpp"
#include "engine/ad_hoc_agent.hpp"
#include "engine/dependencies/dependency_checks.hpp"
#include "engine/lineage.hpp"
#include "engine/mutation_support.hpp"
#include "engine/run_inputs.hpp"
#include "store/task_repository.hpp"
#include "store/store.hpp"
#include "store/run_repository.hpp"

namespace agentry::engine {
namespace {

/// A definition an untrusted project may not use: the answer names the project, so a
/// client (the dashboard) can offer to trust it.
core::Failure with_trust_details(core::Failure failure, const definitions::Roots& roots) {
  auto& e = failure.error;
  if (!roots.project_dir || roots.project_trusted || e.code != core::ErrorCode::validation) return failure;
  const auto* path = e.details.if_contains("path");
  if (path == nullptr || !path->is_string() || !definitions::is_project_file(std::string(path->as_string()), roots))
    return failure;
  e.details["projectDir"] = roots.project_dir->string();
  e.details["projectTrusted"] = false;
  return failure;
}

}  // namespace

namespace json = boost::json;
using core::Run;

namespace {

/// What a new run takes from its parent, read before the write transaction.
struct ParentInfo {
  json::object vars;
  json::object var_sources;
  int depth = 0;  // the parent's nesting depth (1: it has no parent)
  std::string run_group_id;  // a child joins it unless it names its own or opts out
};

/// VALIDATION_FAILED if the parent does not exist, or if a child of it would be nested
/// deeper than `max_depth`: a request for a run in the wrong place, like an unknown
/// parent, rather than an operation the parent's state forbids.
core::Result<std::optional<ParentInfo>> parent_info(store::Store& db, const std::optional<std::string>& parent,
                                                    int max_depth, const ChildResumeLimits* limits = nullptr) {
  if (!parent) return std::optional<ParentInfo>{};
  return db.read([&](store::Transaction& c) -> core::Result<std::optional<ParentInfo>> {
    auto run = c.runs().get(*parent);
    if (!run)
      return core::fail(core::ErrorCode::validation, "parent run '" + *parent + "' does not exist",
                        {{"field", "parentRunId"}});
    // A new child: bounded in number while the ones before it have not ended.
    if (limits)
      if (auto ok = detail::check_live_children(c, *parent, *limits); !ok) return ok.failure();
    ParentInfo info{run->frozen.vars, run->frozen.var_sources, lineage_depth(c, *run, max_depth + 1),
                    run->run_group_id};
    return std::optional<ParentInfo>(std::move(info));
  });
}

core::Result<void> check_call_depth(const ParentInfo& parent, const std::string& parent_id, int max_depth) {
  const int depth = parent.depth + 1;
  if (depth <= max_depth) return core::ok();
  return core::fail(core::ErrorCode::validation,
                    "refusing to create a run nested " + std::to_string(depth) + " deep under parent run '" +
                        parent_id + "': at most " + std::to_string(max_depth) +
                        " runs may nest (AGENTRY_MAX_CALL_DEPTH); is an agent starting agents in a loop? "
                        "A run without parentRunId starts a new lineage",
                    {{"field", "parentRunId"}, {"depth", depth}, {"maxCallDepth", max_depth}});
}

/// Placeholders left as written are worth a look (usually a typo, sometimes literal text
/// such as a CI snippet); they are in the run's audit too. Keys only: never values.
void log_unknown_template_keys(const std::string& run_id, const std::vector<UnknownTemplateKey>& keys) {
  if (keys.empty()) return;
  core::log_warn("unknown template keys left as written", {{"runId", run_id}, {"keys", describe(keys)}});
}

}  // namespace

core::Result<Run> Engine::init(const InitRequest& request, const Actor& actor) {
  auto created = init_view(request, actor);
  if (!created) return created.failure();
  return std::move(created->run);
}

core::Result<RunView> Engine::init_view(const InitRequest& request, const Actor& actor) {
  auto parent = parent_info(db_, request.parent_run_id, config_.max_call_depth, &config_.child_limits);
  if (!parent) return parent.failure();
  if (*parent)
    if (auto ok = check_call_depth(**parent, *request.parent_run_id, config_.max_call_depth); !ok) return ok.failure();

  Run run;
  run.id = core::new_run_id();
  // A child joins its parent's group unless it names one or opts out.
  if (request.run_group_id)
    run.run_group_id = *request.run_group_id;
  else if (*parent && request.inherit_run_group && !(*parent)->run_group_id.empty())
    run.run_group_id = (*parent)->run_group_id;
  else
    run.run_group_id = run.id;
  std::optional<std::filesystem::path> definition_cwd;
  if (request.definition_cwd) definition_cwd = std::filesystem::path(*request.definition_cwd);
  RunInputContext context{projects_.roots_for(definition_cwd), config_.config_dir, config_.state_dir, run.id,
                          run.run_group_id, *parent ? &(*parent)->vars : nullptr,
                          *parent ? &(*parent)->var_sources : nullptr, request.parent_run_id.value_or("")};
  context.cwd_only_elsewhere = [this](const std::string& cwd) { return placement_.only_elsewhere(db_, cwd); };
  context.agent_runner_cmd = agent_runner_command(config_.task_prompt.agentry_binary);
  auto inputs = resolve_run_inputs(request, context, backends_);
  if (!inputs) return with_trust_details(inputs.failure(), context.roots);
  auto schedule = schedules_->from_assignment(inputs->schedule, inputs->frozen.assignment_name);
  if (!schedule) return schedule.failure();

  run.status = core::RunStatus::initialized;
  run.created_at = run.updated_at = core::now_iso8601();
  run.cwd = inputs->cwd;
  run.repo_root = inputs->repo_root;
  run.parent_run_id = request.parent_run_id;
  run.name = request.name;
  run.backend_session_id = request.backend_session_id;
  run.frozen = std::move(inputs->frozen);
  run.frozen.notify_parent_on_complete = run.parent_run_id.has_value() && request.notify_parent_on_complete.value_or(true);
  run.revision = 1;

  auto created = mutate<RunView>(run.id, [&](store::Transaction& c) -> core::Result<RunView> {
    c.runs().insert(run);
    RunView view{run, {}, {}, {}};
    for (auto task : inputs->tasks) {
      task.run_id = run.id;
      task.created_at = task.updated_at = run.created_at;
      c.tasks().insert(task);
      view.tasks.push_back(std::move(task));
    }
    json::object data{{"agent", run.frozen.agent_name},
                      {"assignment", run.frozen.assignment_name},
                      {"backend", run.frozen.backend},
                      {"cwd", run.cwd},
                      {"runGroupId", run.run_group_id},
                      {"taskCount", inputs->tasks.size()}};
    if (run.parent_run_id) {
      data["parentRunId"] = *run.parent_run_id;
      data["notifyParentOnComplete"] = run.frozen.notify_parent_on_complete;
    }
    if (!inputs->unknown_template_keys.empty()) data["unknownTemplateKeys"] = to_json(inputs->unknown_template_keys);
    if (!request.dependencies.empty()) {
      // In the same write: a refused dependency (a cycle through the group the run
      // joins, a duplicate) creates nothing.
      json::array named;
      for (const auto& d : request.dependencies) {
        auto added = detail::add_dependency_row(c, run, d);
        if (!added) return added.failure();
        named.emplace_back(core::describe(*added));
      }
      data["dependencies"] = std::move(named);
      view.run.dependencies = detail::dependencies_of(c, run.id);
    }
    // Runs may already wait on the group this one joins.
    view.run.dependents = detail::dependents_of(c, run);
    detail::append_audit(c, run.id, "run.initialized", actor, std::move(data));
    if (*schedule) schedules_->put(c, view.run, **schedule, actor, "assignment");
    return view;
  });
  if (created) log_unknown_template_keys(created->run.id, inputs->unknown_template_keys);
  if (created && created->run.schedule) schedules_->arm(created->run.id, created->run.schedule);
  return created;
}

core::Result<Run> Engine::start(const InitRequest& request, const Actor& actor) {
  auto run = init(request, actor);
  if (!run) return run;
  auto started = resume(run->id, ResumeRequest{}, actor);
  if (started || request.dependencies.empty()) return started;
  if (auto* reason = started.error().details.if_contains("reason"); !reason || *reason != "unmet_dependencies")
    return started;
  // "Start after": the run waits, ready; the daemon starts it once every dependency is
  // met (engine/dependencies/dependency_commands.cpp), even if that happened just now.
  return ready(run->id, actor);
}

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

  std::optional<std::filesystem::path> definition_cwd;
  if (request.definition_cwd) definition_cwd = std::filesystem::path(*request.definition_cwd);
  RunInputContext context{projects_.roots_for(definition_cwd), config_.config_dir, config_.state_dir, current->id,
                          current->run_group_id, *parent ? &(*parent)->vars : nullptr,
                          *parent ? &(*parent)->var_sources : nullptr, current->parent_run_id.value_or("")};
  context.cwd_only_elsewhere = [this](const std::string& cwd) { return placement_.only_elsewhere(db_, cwd); };
  context.agent_runner_cmd = agent_runner_command(config_.task_prompt.agentry_binary);
  auto inputs = resolve_run_inputs(request, context, backends_);
  if (!inputs) return with_trust_details(inputs.failure(), context.roots);

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
    run->frozen = std::move(inputs->frozen);
    run->frozen.notify_parent_on_complete = notify_parent;
    run->cwd = inputs->cwd;
    run->repo_root = inputs->repo_root;
    if (request.name) run->name = request.name;
    if (request.backend_session_id) run->backend_session_id = request.backend_session_id;
    // The tasks are the definitions' again: the old ones (none has run) go.
    c.tasks().remove_all(run_id);
    const auto now = core::now_iso8601();
    for (auto task : inputs->tasks) {
      task.run_id = run_id;
      task.created_at = task.updated_at = now;
      c.tasks().insert(task);
    }
    detail::save_with_audit(c, *run, "run.reinitialized", actor, std::move(data));
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
    context.agent_runner_cmd = agent_runner_command(config_.task_prompt.agentry_binary);
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

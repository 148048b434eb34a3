// Engine: creating runs (init, start). Each resolves definitions into frozen inputs
// (run_inputs.cpp), runs the module prepare hooks (engine/hooks/prepare_at_init.hpp),
// then writes the run once, atomically.

#include "engine/engine.hpp"
#include "engine/mutate.hpp"

#include "core/clock.hpp"
#include "core/ids.hpp"
#include "engine/creation_support.hpp"
#include "engine/dependencies/dependency_checks.hpp"
#include "engine/hooks/prepare_at_init.hpp"
#include "engine/mutation_support.hpp"
#include "engine/pending_init.hpp"
#include "engine/run_inputs.hpp"
#include "store/run_codec.hpp"
#include "store/run_repository.hpp"
#include "store/store_error.hpp"
#include "store/store.hpp"
#include "store/task_repository.hpp"

namespace agentry::engine {
namespace json = boost::json;
using core::Run;
using detail::check_call_depth;
using detail::log_unknown_template_keys;
using detail::parent_info;
using detail::with_trust_details;

core::Result<Run> Engine::init(const InitRequest& request, const Actor& actor) {
  auto created = init_view(request, actor);
  if (!created) return created.failure();
  return std::move(created->run);
}

core::Result<RunView> Engine::init_view(const InitRequest& request, const Actor& actor) {
  auto pending = plan_init(request, actor);
  if (!pending) return pending.failure();
  return finish_init(**pending);
}

bool PendingInit::runs_prepare_hooks() const { return has_prepare_at_init(inputs.frozen); }

core::Result<std::shared_ptr<PendingInit>> Engine::plan_init(const InitRequest& request, const Actor& actor) {
  auto parent = parent_info(db_, request.parent_run_id, config_.max_call_depth, &config_.child_limits);
  if (!parent) return parent.failure();
  if (*parent)
    if (auto ok = check_call_depth(**parent, *request.parent_run_id, config_.max_call_depth); !ok) return ok.failure();

  auto pending = std::make_shared<PendingInit>();
  pending->request = request;
  pending->actor = actor;
  Run& run = pending->run;
  run.id = core::new_run_id();
  // A child joins its parent's group unless it names one or opts out.
  if (request.run_group_id)
    run.run_group_id = *request.run_group_id;
  else if (*parent && request.inherit_run_group && !(*parent)->run_group_id.empty())
    run.run_group_id = (*parent)->run_group_id;
  else
    run.run_group_id = run.id;
  if (*parent) {
    pending->parent_vars = (*parent)->vars;
    pending->parent_var_sources = (*parent)->var_sources;
  }
  std::optional<std::filesystem::path> definition_cwd;
  if (request.definition_cwd) definition_cwd = std::filesystem::path(*request.definition_cwd);
  pending->context = RunInputContext{projects_.roots_for(definition_cwd), config_.config_dir, config_.state_dir, run.id,
                                     run.run_group_id, *parent ? &pending->parent_vars : nullptr,
                                     *parent ? &pending->parent_var_sources : nullptr, request.parent_run_id.value_or("")};
  auto& context = pending->context;
  context.cwd_only_elsewhere = [this](const std::string& cwd) { return placement_.only_elsewhere(db_, cwd); };
  context.agent_runner_cmd = agent_runner_cmd_;
  auto inputs = resolve_run_inputs(request, context, backends_);
  if (!inputs) return with_trust_details(inputs.failure(), context.roots);
  pending->inputs = std::move(*inputs);
  auto schedule = schedules_->from_assignment(pending->inputs.schedule, pending->inputs.frozen.assignment_name);
  if (!schedule) return schedule.failure();
  pending->schedule = std::move(*schedule);
  // Without module prepare hooks nothing can set a `requiredAt: prepare` var: said now.
  if (!pending->runs_prepare_hooks())
    if (auto ok = check_prepared_vars(pending->inputs.frozen); !ok) return ok.failure();

  run.status = core::RunStatus::initialized;
  run.created_at = run.updated_at = core::now_iso8601();
  run.cwd = pending->inputs.cwd;
  run.repo_root = pending->inputs.repo_root;
  run.parent_run_id = request.parent_run_id;
  run.name = request.name;
  run.backend_session_id = request.backend_session_id;
  run.revision = 1;
  return pending;
}

/// The module prepare hooks of a planned init, if it has any (blocking), then the check
/// of the vars they were to set.
core::Result<PreparedAtInit> Engine::prepare_pending(PendingInit& pending) {
  PreparedAtInit prepared;
  if (pending.runs_prepare_hooks()) {
    const PrepareAtInitEnv env{pending.context, backends_, pending.request.overrides.backend_config.has_value()};
    auto ran = run_prepare_at_init(pending.run, pending.inputs, env);
    if (!ran) return ran.failure();
    prepared = std::move(*ran);
  }
  if (auto ok = check_prepared_vars(pending.inputs.frozen); !ok) return ok.failure();
  return prepared;
}

namespace {

/// The run as the init writes it: the plan's inputs and what its prepare hooks did, with
/// its frozen inputs encoded for the store (a failure when they cannot be stored).
core::Result<void> fill_in_run(PendingInit& pending, const PreparedAtInit& prepared) {
  Run& run = pending.run;
  run.cwd = pending.inputs.cwd;
  run.repo_root = pending.inputs.repo_root;
  if (prepared.note) run.note = prepared.note;
  if (prepared.pinned) run.pinned = *prepared.pinned;
  run.frozen = std::move(pending.inputs.frozen);
  run.frozen.notify_parent_on_complete =
      run.parent_run_id.has_value() && pending.request.notify_parent_on_complete.value_or(true);
  return store::guard([&]() -> core::Result<void> {
    pending.frozen_text = std::make_shared<const store::FrozenText>(store::encode_frozen(run));
    return core::ok();
  });
}

}  // namespace

core::Result<RunView> Engine::finish_init(PendingInit& pending) {
  auto prepared = prepare_pending(pending);
  if (!prepared) return prepared.failure();
  if (auto filled = fill_in_run(pending, *prepared); !filled) return filled.failure();
  auto created = mutate<RunView>(pending.run.id, [&](store::Transaction& c) { return write_init(c, pending, *prepared); });
  return after_init_commit(pending, std::move(created));
}

void Engine::finish_init_later(std::shared_ptr<PendingInit> pending, std::function<void(FinishInit)> done) {
  if (auto ok = check_prepared_vars(pending->inputs.frozen); !ok) {
    done([failure = ok.failure()]() -> core::Result<RunView> { return failure; });
    return;
  }
  auto prepared = std::make_shared<const PreparedAtInit>();
  if (auto filled = fill_in_run(*pending, *prepared); !filled) {
    done([failure = filled.failure()]() -> core::Result<RunView> { return failure; });
    return;
  }
  db_.write_then<RunView>(
      [this, pending, prepared](store::Transaction& c) { return write_init(c, *pending, *prepared); },
      [this, pending, done = std::move(done)](core::Result<RunView> created) {
        done([this, pending, created = std::move(created)]() mutable {
          if (created) bus_.run_changed(pending->run.id);
          return after_init_commit(*pending, std::move(created));
        });
      });
}

core::Result<RunView> Engine::write_init(store::Transaction& c, PendingInit& pending, const PreparedAtInit& prepared) {
  const InitRequest& request = pending.request;
  const auto* inputs = &pending.inputs;
  Run& run = pending.run;
  // The job fills in `run` itself and the view takes it once committed: the writer copies
  // no run.
  c.runs().insert(run, *pending.frozen_text);
  RunView view;
  for (auto task : inputs->tasks) {
    task.run_id = run.id;
    task.created_at = task.updated_at = run.created_at;
    c.tasks().insert(task);
    view.tasks.push_back(std::move(task));
  }
  // In the same write: the run is never seen without what its prepare hooks did.
  record_prepare_at_init(c, run.id, prepared);
  json::object data{{"agent", run.frozen.agent_name},
                    {"assignment", run.frozen.assignment_name},
                    {"backend", run.frozen.backend},
                    {"cwd", run.cwd},
                    {"runGroupId", run.run_group_id},
                    {"taskCount", inputs->tasks.size()}};
  if (!prepared.audits.empty()) data["prepareHooks"] = prepared.audits.size();
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
    run.dependencies = detail::dependencies_of(c, run.id);
  }
  // Runs may already wait on the group this one joins, when it joins one by name or its
  // parent's. Nobody can wait on a run id minted just now, nor on the group of that name.
  if (run.run_group_id != run.id) run.dependents = detail::dependents_of(c, run);
  detail::append_audit(c, run.id, "run.initialized", pending.actor, std::move(data));
  if (pending.schedule) schedules_->put(c, run, *pending.schedule, pending.actor, "assignment");
  return view;
}

core::Result<RunView> Engine::after_init_commit(PendingInit& pending, core::Result<RunView> created) {
  if (!created) return created;
  created->run = std::move(pending.run);
  log_unknown_template_keys(created->run.id, pending.inputs.unknown_template_keys);
  if (created->run.schedule) schedules_->arm(created->run.id, created->run.schedule);
  return created;
}

core::Result<Run> Engine::start(const InitRequest& request, const Actor& actor) {
  auto pending = plan_init(request, actor);
  if (!pending) return pending.failure();
  return finish_start(**pending);
}

core::Result<Run> Engine::finish_start(PendingInit& pending) {
  auto created = finish_init(pending);
  if (!created) return created.failure();
  const auto& run = created->run;
  const InitRequest& request = pending.request;
  const Actor& actor = pending.actor;
  auto started = resume(run.id, ResumeRequest{}, actor);
  if (started || request.dependencies.empty()) return started;
  if (auto* reason = started.error().details.if_contains("reason"); !reason || *reason != "unmet_dependencies")
    return started;
  // "Start after": the run waits, ready; the daemon starts it once every dependency is
  // met (engine/dependencies/dependency_commands.cpp), even if that happened just now.
  return ready(run.id, actor);
}

}  // namespace agentry::engine

// agent-runner's init, start and resume on ours. Its start request differs from ours in
// a few names (noInheritRunGroup, parentCompletionNotification, executionEnvironment,
// overrides.name) and in what it can ask at once (tasks to add, a schedule): those are
// our init followed by our task and schedule calls, then the start, and a run whose
// later step is refused is removed again, so a refusal leaves nothing behind.

#include "api/compat/compat_dto.hpp"
#include "api/compat/compat_operations.hpp"
#include "definitions/dialect.hpp"

#include <algorithm>

namespace agentry::api::compat {
namespace json = boost::json;
using core::Result;
namespace {

/// Their start takes only their effort levels (definitions/dialect.hpp).
bool is_effort_level(std::string_view effort) {
  const auto& levels = definitions::agent_runner_effort_levels;
  return std::find(levels.begin(), levels.end(), effort) != levels.end();
}

core::Failure refuse(const std::string& field, const std::string& why) {
  return core::fail(core::ErrorCode::invalid_request, "'" + field + "' " + why, {{"field", field}});
}

/// Their start parameters as ours, and what must follow our init.
struct StartPlan {
  json::object init;                  // our runs.init / runs.start parameters
  std::vector<std::string> add_tasks; // overrides.addedTasks: titles
  json::object schedule;              // overrides.schedule, flat as ours takes it; empty: none
};

Result<StartPlan> plan_start(const CompatContext& ctx, const OperationRequest& r, bool web, bool start) {
  const char* vars_key = web ? "webVars" : "cliVars";
  std::vector<std::string_view> allowed = {"runId",       "agent",          "assignment", "definitionCwd",
                                           "callerCwd",   "parentRunId",    "runGroupId", "backendSessionId",
                                           "overrides",   vars_key};
  if (!web) {
    allowed.push_back("noInheritRunGroup");
    allowed.push_back("parentCompletionNotification");
  }
  for (const auto& [key, value] : r.params)
    if (std::find(allowed.begin(), allowed.end(), std::string_view(key)) == allowed.end())
      return refuse(std::string(key), "is not a start parameter here");
  StartPlan plan;
  // runId on init re-initializes that run (ours takes it as is); their start has no use for it.
  const auto* run_id = r.params.if_contains("runId");
  if (run_id && !run_id->is_null()) {
    if (start)
      return refuse("runId", "is for init only (re-initializing an initialized run); start a new run without it, "
                             "or re-initialize with init and then start the run");
    if (!run_id->is_string() || run_id->as_string().empty()) return refuse("runId", "must be a run id");
    plan.init["runId"] = *run_id;
  }
  for (const char* key : {"agent", "assignment", "definitionCwd", "callerCwd", "parentRunId", "runGroupId",
                          "backendSessionId"})
    if (const auto* v = r.params.if_contains(key); v && !v->is_null()) plan.init[key] = *v;
  if (const auto* vars = r.params.if_contains(vars_key)) plan.init[vars_key] = *vars;
  else plan.init[vars_key] = json::object{};
  // agent-runner's dashboard sends no cwd at all: its daemon's own applies.
  // A re-initialization without one keeps the run's own.
  if (!plan.init.contains("callerCwd") && !plan.init.contains("runId"))
    plan.init["callerCwd"] = ctx.default_cwd.string();
  if (const auto* no_inherit = r.params.if_contains("noInheritRunGroup")) {
    if (!no_inherit->is_bool()) return refuse("noInheritRunGroup", "must be a boolean");
    plan.init["inheritRunGroup"] = !no_inherit->as_bool();
  }
  // Theirs tells a parent of its child's end only when asked; ours would by default.
  if (plan.init.contains("parentRunId")) {
    const auto* notification = r.params.if_contains("parentCompletionNotification");
    if (notification && !notification->is_object())
      return refuse("parentCompletionNotification", "must be an object {source, parentRunId}");
    plan.init["notifyParentOnComplete"] = notification != nullptr;
  }
  if (const auto* overrides_value = r.params.if_contains("overrides"); overrides_value && !overrides_value->is_null()) {
    if (!overrides_value->is_object()) return refuse("overrides", "must be an object");
    json::object ours;
    for (const auto& [key, value] : overrides_value->as_object()) {
      if (key == "name") {
        plan.init["name"] = value;
      } else if (key == "executionEnvironment") {
        ours["environment"] = value;
      } else if (key == "addedTasks") {
        if (!value.is_array()) return refuse("overrides.addedTasks", "must be a list of task titles");
        for (const auto& title : value.as_array()) {
          if (!title.is_string() || title.as_string().empty())
            return refuse("overrides.addedTasks", "must be a list of non-empty task titles");
          plan.add_tasks.emplace_back(title.as_string());
        }
      } else if (key == "schedule") {
        if (!value.is_object()) return refuse("overrides.schedule", "must be an object {at|delay|cron, ...}");
        plan.schedule = value.as_object();
      } else if (key == "effort" && !(value.is_string() && is_effort_level(value.as_string()))) {
        return refuse("overrides.effort", "must be one of off, minimal, low, medium, high, xhigh or max");
      } else {
        // cwd, launcher, model, effort, message, timeoutSec, maxRetries, backendConfig;
        // backend and unrestricted where the agent unlocks them (without an agent, a
        // backend makes an ad-hoc one).
        ours[key] = value;
      }
    }
    if (!ours.empty()) plan.init["overrides"] = std::move(ours);
  }
  // Their steps after our init would undo a refused one by removing the run, which a
  // re-initialization must never do.
  if (plan.init.contains("runId") && (!plan.add_tasks.empty() || !plan.schedule.empty()))
    return refuse(plan.add_tasks.empty() ? "overrides.schedule" : "overrides.addedTasks",
                  "cannot be combined with runId in agentry: re-initialize the run, then add its tasks or set its "
                  "schedule");
  return plan;
}

/// The steps theirs asks for at once after our init made run `created`, then (`start`)
/// the start. Our run's detail at the end.
Result<json::object> after_init(const CompatContext& ctx, const OperationRequest& r, const StartPlan& plan, bool start,
                                const json::object& created) {
  const std::string id(created.at("run").at("runId").as_string());
  auto undo = [&](core::Error error) -> Result<json::object> {
    (void)call_native(ctx, "runs.delete", r, {{"runId", id}});
    return core::Failure{std::move(error)};
  };
  for (const auto& title : plan.add_tasks)
    if (auto added = call_native(ctx, "tasks.add", r, {{"runId", id}, {"title", title}}); !added)
      return undo(added.error());
  if (!plan.schedule.empty()) {
    json::object ready{{"runId", id}};
    for (const auto& [key, value] : plan.schedule) ready[key] = value;
    // A scheduled run waits `ready` for its time, whether it was asked to start or not.
    auto scheduled = call_native(ctx, "runs.ready", r, std::move(ready));
    if (!scheduled) return undo(scheduled.error());
    return scheduled;
  }
  if (!start) return call_native(ctx, "runs.get", r, {{"runId", id}});
  auto started = call_native(ctx, "runs.resume", r, {{"runId", id}});
  if (!started) return undo(started.error());
  return started;
}

using Continuation = std::function<Result<OperationResult>(json::object)>;

/// Our `name` with `params`, then `then` with its answer: in place, or on the
/// transport's blocking workers when ours waits on a program (an init that runs module
/// prepare hooks), so that no request worker waits on it.
Result<OperationResult> call_native_then(const CompatContext& ctx, std::string_view name, const OperationRequest& r,
                                         json::object params, Continuation then) {
  OperationRequest native = r;
  native.params = std::move(params);
  auto result = ctx.native.call(name, native);
  if (!result) return result.failure();
  auto go_on = [name = std::string(name), then = std::move(then)](Result<OperationResult> done) -> Result<OperationResult> {
    done = finish(std::move(done));
    if (!done) return done.failure();
    if (!done->body.is_object())
      return core::fail(core::ErrorCode::internal, name + " answered something other than an object");
    return then(std::move(done->body.as_object()));
  };
  if (!result->blocking) return go_on(std::move(*result));
  OperationResult later;
  later.blocking = [blocking = std::move(result->blocking), go_on = std::move(go_on)] { return go_on(blocking()); };
  return later;
}

Operation start_method(CompatContext& ctx, bool start) {
  return [&ctx, start](const OperationRequest& r) -> Result<OperationResult> {
    const bool web = r.over_http;
    auto plan = plan_start(ctx, r, web, start);
    if (!plan) return plan.failure();
    auto answer = [&ctx, start](const json::object& done) -> Result<OperationResult> {
      const auto& run = done.at("run").as_object();
      if (start) return OperationResult{json::object{{"runId", run.at("runId")}}};
      return OperationResult{json::object{{"run", ref_detail(run, facts_of(ctx))}}};
    };
    // Our init (or start), then the steps theirs asks for at once.
    const bool simple = plan->add_tasks.empty() && plan->schedule.empty();
    const bool plan_adds_tasks = !plan->add_tasks.empty();
    json::object init = plan->init;
    if (simple) return call_native_then(ctx, start ? "runs.start" : "runs.init", r, std::move(init), answer);
    auto steps = [&ctx, r, plan = std::move(*plan), start, answer, init = std::move(init)]() mutable {
      return call_native_then(ctx, "runs.init", r, std::move(init), [&ctx, r, plan, start, answer](json::object created) {
        auto done = after_init(ctx, r, plan, start, created);
        if (!done) return Result<OperationResult>(done.failure());
        return answer(*done);
      });
    };
    // An added task may wait on taskTransition hooks (task-add): the whole answer is
    // finished off the request workers.
    if (plan_adds_tasks) {
      OperationResult later;
      later.blocking = [steps = std::move(steps)]() mutable { return finish(steps()); };
      return later;
    }
    return steps();
  };
}

}  // namespace

void add_compat_start_operations(Operations& ops, CompatContext& ctx) {
  ops.add("runs.init", start_method(ctx, false));
  ops.add("runs.start", start_method(ctx, true));
  ops.add("runs.resume", [&ctx](const OperationRequest& r) -> Result<OperationResult> {
    for (const auto& [key, value] : r.params)
      if (key != "target" && key != "overrides" && key != "parentCompletionNotification")
        return refuse(std::string(key), "is not a resume parameter");
    auto id = target_of(r);
    if (!id) return id.failure();
    json::object ours{{"runId", *id}};
    if (const auto* overrides = r.params.if_contains("overrides"); overrides && !overrides->is_null())
      ours["overrides"] = *overrides;
    auto done = call_native(ctx, "runs.resume", r, std::move(ours));
    if (!done) return done.failure();
    return OperationResult{json::object{{"runId", *id}}};
  });
}

}  // namespace agentry::api::compat

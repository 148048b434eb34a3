// Operations on a run's tasks.

#include "api/operations.hpp"
#include "api/run_request_parsing.hpp"
#include "events/projections.hpp"

namespace agentry::api {
namespace json = boost::json;
using core::Result;

namespace {

struct TaskTarget {
  std::string run_id;
  std::string task_id;
  JsonBody rest;  // the params without runId and taskId
};

/// runId (+ taskId when `with_task`) out of the params; the rest checked against `allowed`.
Result<TaskTarget> target_of(const OperationRequest& request, bool with_task,
                             std::initializer_list<std::string_view> allowed) {
  JsonBody params(request.params);
  auto id = run_id_of(params);
  if (!id) return id.failure();
  json::object rest = params.object();
  rest.erase("runId");
  std::string task_id;
  if (with_task) {
    auto task = params.required_string("taskId");
    if (!task) return task.failure();
    task_id = *task;
    rest.erase("taskId");
  }
  JsonBody body(std::move(rest));
  if (auto ok = body.allow_only(allowed); !ok) return ok.failure();
  return TaskTarget{*id, task_id, std::move(body)};
}

Result<OperationResult> task_result(const Result<core::Task>& task, int status = 200) {
  if (!task) return task.failure();
  return OperationResult{json::object{{"task", events::task_json(*task)}}, status};
}

}  // namespace

void add_task_operations(Operations& ops, ApiContext& ctx) {
  auto& engine = ctx.engine;
  ops.add("tasks.list", [&engine](const OperationRequest& r) -> Result<OperationResult> {
    auto t = target_of(r, false, {});
    if (!t) return t.failure();
    auto tasks = engine.tasks().list(t->run_id);
    if (!tasks) return tasks.failure();
    json::array out;
    for (const auto& task : *tasks) out.push_back(events::task_json(task));
    return OperationResult{json::object{{"runId", t->run_id}, {"tasks", std::move(out)}}};
  });
  ops.add("tasks.get", [&engine](const OperationRequest& r) -> Result<OperationResult> {
    auto t = target_of(r, true, {});
    if (!t) return t.failure();
    return task_result(engine.tasks().get(t->run_id, t->task_id));
  });
  ops.add("tasks.set", [&engine](const OperationRequest& r) -> Result<OperationResult> {
    auto t = target_of(r, true, {"status", "notes", "title", "body"});
    if (!t) return t.failure();
    auto patch = parse_task_patch(t->rest);
    if (!patch) return patch.failure();
    // taskTransition hooks may take minutes: their wait happens off the request workers.
    if (engine.tasks().transition_runs_hooks(t->run_id, t->task_id, *patch)) {
      OperationResult later;
      later.blocking = [&engine, run_id = t->run_id, task_id = t->task_id, patch = *patch, actor = r.actor] {
        return task_result(engine.tasks().update(run_id, task_id, patch, actor));
      };
      return later;
    }
    return task_result(engine.tasks().update(t->run_id, t->task_id, *patch, r.actor));
  });
  ops.add("tasks.appendNotes", [&engine](const OperationRequest& r) -> Result<OperationResult> {
    auto t = target_of(r, true, {"text"});
    if (!t) return t.failure();
    auto text = t->rest.required_string("text");
    if (!text) return text.failure();
    if (engine.tasks().source_runs_hooks(t->run_id, "task-append-notes")) {
      OperationResult later;
      later.blocking = [&engine, run_id = t->run_id, task_id = t->task_id, text = *text, actor = r.actor] {
        return task_result(engine.tasks().append_notes(run_id, task_id, text, actor));
      };
      return later;
    }
    return task_result(engine.tasks().append_notes(t->run_id, t->task_id, *text, r.actor));
  });
  ops.add("tasks.add", [&engine](const OperationRequest& r) -> Result<OperationResult> {
    auto t = target_of(r, false, {"id", "title", "body"});
    if (!t) return t.failure();
    auto task = parse_new_task(t->rest);
    if (!task) return task.failure();
    if (engine.tasks().source_runs_hooks(t->run_id, "task-add")) {
      OperationResult later;
      later.blocking = [&engine, run_id = t->run_id, task = *task, actor = r.actor] {
        return task_result(engine.tasks().add(run_id, task, actor), 201);
      };
      return later;
    }
    return task_result(engine.tasks().add(t->run_id, *task, r.actor), 201);
  });
  ops.add("tasks.delete", [&engine](const OperationRequest& r) -> Result<OperationResult> {
    auto t = target_of(r, true, {});
    if (!t) return t.failure();
    auto deleted = engine.tasks().remove(t->run_id, t->task_id, r.actor);
    if (!deleted) return deleted.failure();
    return OperationResult{json::object{{"result", {{"runId", deleted->run_id},
                                                    {"taskId", deleted->task_id},
                                                    {"deleted", true},
                                                    {"updatedAt", deleted->updated_at}}}}};
  });
}

}  // namespace agentry::api

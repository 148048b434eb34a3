// TaskService: a run's task list (engine/tasks/task_service.hpp).

#include "engine/tasks/task_service.hpp"

#include "engine/hooks/after_exit.hpp"
#include "engine/mutate_run.hpp"

#include "core/clock.hpp"
#include "core/ids.hpp"
#include "core/log.hpp"
#include "engine/hooks/hook_runner.hpp"
#include "engine/tasks/task_transition_hooks.hpp"
#include "engine/mutation_support.hpp"
#include "store/task_repository.hpp"
#include "store/run_repository.hpp"
#include "store/store.hpp"

namespace agentry::engine {
using core::Operation;
using core::Task;
namespace json = boost::json;
namespace {

constexpr std::size_t max_task_text = 64 * 1024;
constexpr std::size_t max_notes = 256 * 1024;

core::Result<Task> load_task(store::Transaction& c, const std::string& run_id, const std::string& task_id) {
  auto task = c.tasks().get(run_id, task_id);
  if (!task)
    return core::fail(core::ErrorCode::not_found, "run " + run_id + " has no task '" + task_id + "'",
                      {{"runId", run_id}, {"taskId", task_id}});
  return std::move(*task);
}

core::Result<void> check_length(std::string_view field, const std::string& value, std::size_t limit) {
  if (value.size() > limit)
    return core::fail(core::ErrorCode::validation,
                      std::string(field) + " is too long (" + std::to_string(value.size()) + " bytes; limit " +
                          std::to_string(limit) + ")",
                      {{"field", field}});
  return core::ok();
}

/// Task changes bump the run too, so its summary (counts, active task) is re-published.
/// Returns the session end whose afterExit hooks must run once this commits, if any.
std::optional<SessionEnd> finish_task_change(store::Transaction& c, core::Run& run, const Actor& actor) {
  detail::touch(run);
  const int session = run.session_count - 1;
  auto ended = detail::settle_passive_run(c, run, actor);
  c.runs().update(run);
  if (!ended || !has_hooks(run, core::HookPhase::after_exit)) return std::nullopt;
  return SessionEnd{run.id, session, std::string(core::to_string(*ended))};
}

/// The run and one of its tasks as they are now (what hooks about to run are shown).
core::Result<std::pair<core::Run, Task>> read_run_and_task(store::Store& db, const std::string& run_id,
                                                          const std::string& task_id) {
  return db.read([&](store::Transaction& c) -> core::Result<std::pair<core::Run, Task>> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    auto task = load_task(c, run_id, task_id);
    if (!task) return task.failure();
    return std::pair{std::move(*run), std::move(*task)};
  });
}

}  // namespace

core::Result<std::vector<Task>> TaskService::list(const std::string& run_id) {
  return db_.read([&](store::Transaction& c) -> core::Result<std::vector<Task>> {
    if (!c.runs().get(run_id)) return detail::load_run(c, run_id).failure();
    return c.tasks().list(run_id);
  });
}

core::Result<Task> TaskService::get(const std::string& run_id, const std::string& task_id) {
  return db_.read([&](store::Transaction& c) -> core::Result<Task> {
    if (!c.runs().get(run_id)) return detail::load_run(c, run_id).failure();
    return load_task(c, run_id, task_id);
  });
}

bool TaskService::transition_runs_hooks(const std::string& run_id, const std::string& task_id, const TaskPatch& patch) {
  if (!patch.status) return false;
  const auto status = core::parse_task_status(*patch.status);
  if (!status) return false;
  auto runs = db_.read([&](store::Transaction& c) -> core::Result<bool> {
    auto run = c.runs().get(run_id);
    if (!run || !has_hooks(*run, core::HookPhase::task_transition)) return false;
    auto task = c.tasks().get(run_id, task_id);
    return task && task->status != *status;
  });
  return runs && *runs;
}

core::Result<Task> TaskService::update(const std::string& run_id, const std::string& task_id, const TaskPatch& patch,
                                       const Actor& actor) {
  std::optional<core::TaskStatus> status;
  if (patch.status) {
    status = core::parse_task_status(*patch.status);
    if (!status)
      return core::fail(core::ErrorCode::invalid_request,
                        "status must be one of pending, in_progress, completed, blocked (got '" + *patch.status + "')",
                        {{"field", "status"}});
  }
  for (auto [field, value, limit] : {std::tuple{"notes", &patch.notes, max_notes},
                                     std::tuple{"title", &patch.title, max_task_text},
                                     std::tuple{"body", &patch.body, max_task_text}})
    if (*value)
      if (auto ok = check_length(field, **value, limit); !ok) return ok.failure();
  if (patch.title && patch.title->empty())
    return core::fail(core::ErrorCode::invalid_request, "title must not be empty", {{"field", "title"}});

  // taskTransition hooks run here, before the write (on a transport's blocking pool,
  // never a request worker: api/task_operations.cpp asks transition_runs_hooks): each is
  // bounded by its timeout (at most 120 s) and killed by an abort of the run or a
  // shutdown, and a refusal answers the request with CONFLICT. They see the status the
  // task had when they started; the write below re-checks it (`seen`), so a change that
  // slipped in meanwhile cannot ride on a verdict given for another transition.
  std::optional<HookPhaseResult> hooks;
  std::optional<core::TaskStatus> seen;
  if (status) {
    auto before = read_run_and_task(db_, run_id, task_id);
    if (!before) return before.failure();
    auto& [run, task] = *before;
    if (has_transition_hooks(run, "task-set")) seen = task.status;
    if (task.status != *status && has_transition_hooks(run, "task-set")) {
      TaskTransition t{task_id, "task-set", task, task, {"status"}};
      t.to.status = *status;
      for (auto [field, value, current] : {std::tuple{"notes", &patch.notes, &t.to.notes},
                                           std::tuple{"title", &patch.title, &t.to.title},
                                           std::tuple{"body", &patch.body, &t.to.body}})
        if (*value && **value != *current) {
          *current = **value;
          t.changed_fields.emplace_back(field);
        }
      hooks = run_transition_hooks(run, t, actor, hooks_, HookServices{db_, state_dir_, &attachments_});
      if (hooks->stop) return refuse_transition(db_, bus_, run_id, t, *hooks, actor);
    }
  }

  std::optional<SessionEnd> ended;
  bool superseded = false;
  auto result = detail::mutate_run<Task>(db_, bus_, run_id, [&](store::Transaction& c) -> core::Result<Task> {
    ended.reset();
    superseded = false;
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    auto task = load_task(c, run_id, task_id);
    if (!task) return task.failure();
    if (status)
      if (auto ok = detail::check_allowed(Operation::task_set_status, *run, "set task status on"); !ok)
        return ok.failure();
    // Decided in this write: the transition the hooks judged (or found nothing to judge)
    // must still be the one being made.
    if (status && seen && task->status != *seen && task->status != *status) {
      superseded = true;
      return core::fail(core::ErrorCode::conflict,
                        "task '" + task_id + "' changed from " + std::string(core::to_string(*seen)) + " to " +
                            std::string(core::to_string(task->status)) +
                            " while its taskTransition hooks ran; send the change again",
                        {{"runId", run_id}, {"taskId", task_id}, {"reason", "task_changed"}});
    }
    if (hooks && record_hook_results(c, *run, *hooks)) c.runs().update(*run);
    if (patch.notes)
      if (auto ok = detail::check_allowed(Operation::task_set_notes, *run, "set task notes on"); !ok)
        return ok.failure();
    if (patch.title || patch.body) {
      if (auto ok = detail::check_allowed(Operation::task_edit_pending, *run, "edit tasks of"); !ok)
        return ok.failure();
      if (task->status != core::TaskStatus::pending)
        return core::fail(core::ErrorCode::conflict,
                          "task '" + task_id + "' is " + std::string(core::to_string(task->status)) +
                              "; only pending tasks can have their title or body edited",
                          {{"runId", run_id}, {"taskId", task_id}});
    }
    json::object changed;
    if (status && *status != task->status) {
      changed["status"] = json::object{{"from", core::to_string(task->status)}, {"to", core::to_string(*status)}};
      task->status = *status;
    }
    if (patch.notes && *patch.notes != task->notes) {
      task->notes = *patch.notes;
      changed["notes"] = json::object{{"length", task->notes.size()}};
    }
    if (patch.title && *patch.title != task->title) {
      task->title = *patch.title;
      changed["title"] = task->title;
    }
    if (patch.body && *patch.body != task->body) {
      task->body = *patch.body;
      changed["body"] = json::object{{"length", task->body.size()}};
    }
    if (changed.empty()) return task;
    task->updated_at = core::now_iso8601();
    c.tasks().update(*task);
    detail::append_audit(c, run_id, "task.updated", actor, {{"taskId", task_id}, {"changed", changed}});
    ended = finish_task_change(c, *run, actor);
    return task;
  });
  // The hooks ran all the same: what they did is recorded, though their verdict is void.
  if (superseded && hooks) record_void_transition_hooks(db_, bus_, run_id, *hooks);
  // A passive run whose tasks ended its session: afterExit, off this worker.
  if (result && ended) hooks_.after_session_end(std::move(*ended));
  return result;
}

core::Result<Task> TaskService::append_notes(const std::string& run_id, const std::string& task_id,
                                             const std::string& text, const Actor& actor) {
  if (text.empty()) return core::fail(core::ErrorCode::invalid_request, "text must not be empty", {{"field", "text"}});
  // taskTransition hooks that judge appended notes (source task-append-notes) run first,
  // as for a status change (update()); the write re-checks the task is as they saw it.
  std::optional<HookPhaseResult> hooks;
  std::optional<Task> seen;
  auto before = read_run_and_task(db_, run_id, task_id);
  if (!before) return before.failure();
  if (auto& [run, task] = *before; has_transition_hooks(run, "task-append-notes")) {
    if (auto ok = detail::check_allowed(Operation::task_append_notes, run, "append task notes on"); !ok)
      return ok.failure();
    TaskTransition t{task_id, "task-append-notes", task, task, {"notes"}};
    t.to.notes = task.notes.empty() ? text : task.notes + "\n" + text;
    if (auto ok = check_length("notes", t.to.notes, max_notes); !ok) return ok.failure();
    seen = task;
    hooks = run_transition_hooks(run, t, actor, hooks_, HookServices{db_, state_dir_, &attachments_});
    if (hooks->stop) return refuse_transition(db_, bus_, run_id, t, *hooks, actor);
  }
  std::optional<SessionEnd> ended;
  bool superseded = false;
  auto result = detail::mutate_run<Task>(db_, bus_, run_id, [&](store::Transaction& c) -> core::Result<Task> {
    ended.reset();
    superseded = false;
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (auto ok = detail::check_allowed(Operation::task_append_notes, *run, "append task notes on"); !ok)
      return ok.failure();
    auto task = load_task(c, run_id, task_id);
    if (!task) return task.failure();
    if (seen && (task->notes != seen->notes || task->status != seen->status)) {
      superseded = true;
      return core::fail(core::ErrorCode::conflict,
                        "task '" + task_id + "' changed while its taskTransition hooks ran; send the notes again",
                        {{"runId", run_id}, {"taskId", task_id}, {"reason", "task_changed"}});
    }
    if (hooks && record_hook_results(c, *run, *hooks)) c.runs().update(*run);
    task = load_task(c, run_id, task_id);  // as the hooks' own patches left it
    if (!task) return task.failure();
    std::string notes = task->notes.empty() ? text : task->notes + "\n" + text;
    if (auto ok = check_length("notes", notes, max_notes); !ok) return ok.failure();
    task->notes = std::move(notes);
    task->updated_at = core::now_iso8601();
    c.tasks().update(*task);
    detail::append_audit(c, run_id, "task.notes_appended", actor, {{"taskId", task_id}, {"length", text.size()}});
    ended = finish_task_change(c, *run, actor);
    return task;
  });
  if (superseded && hooks) record_void_transition_hooks(db_, bus_, run_id, *hooks);
  // A passive run whose tasks ended its session: afterExit, off this worker.
  if (result && ended) hooks_.after_session_end(std::move(*ended));
  return result;
}

bool TaskService::source_runs_hooks(const std::string& run_id, std::string_view source) {
  auto runs = db_.read([&](store::Transaction& c) -> core::Result<bool> {
    auto run = c.runs().get(run_id);
    return run && has_transition_hooks(*run, source);
  });
  return runs && *runs;
}

core::Result<Task> TaskService::add(const std::string& run_id, const NewTask& input, const Actor& actor) {
  if (input.id && !core::is_valid_key(*input.id))
    return core::fail(core::ErrorCode::invalid_request,
                      "task id must be 1-128 characters of letters, digits and _ . : / -", {{"field", "id"}});
  if (input.title.empty())
    return core::fail(core::ErrorCode::invalid_request, "title must not be empty", {{"field", "title"}});
  if (auto ok = check_length("title", input.title, max_task_text); !ok) return ok.failure();
  if (auto ok = check_length("body", input.body, max_task_text); !ok) return ok.failure();
  const std::string id = input.id.value_or(core::new_prefixed_id("task"));
  // taskTransition hooks that judge added tasks (source task-add) see the task it would
  // be; a refusal adds nothing.
  std::optional<HookPhaseResult> hooks;
  auto run_now = db_.read([&](store::Transaction& c) -> core::Result<core::Run> { return detail::load_run(c, run_id); });
  if (!run_now) return run_now.failure();
  if (has_transition_hooks(*run_now, "task-add")) {
    if (auto ok = detail::check_allowed(Operation::task_add, *run_now, "add tasks to"); !ok) return ok.failure();
    Task tentative;
    tentative.run_id = run_id;
    tentative.id = id;
    tentative.title = input.title;
    tentative.body = input.body;
    TaskTransition t{id, "task-add", std::nullopt, tentative, {"title", "body"}};
    hooks = run_transition_hooks(*run_now, t, actor, hooks_, HookServices{db_, state_dir_, &attachments_});
    if (hooks->stop) return refuse_transition(db_, bus_, run_id, t, *hooks, actor);
  }
  std::optional<SessionEnd> ended;
  bool taken = false;
  auto result = detail::mutate_run<Task>(db_, bus_, run_id, [&](store::Transaction& c) -> core::Result<Task> {
    ended.reset();
    taken = false;
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (auto ok = detail::check_allowed(Operation::task_add, *run, "add tasks to"); !ok) return ok.failure();
    Task task;
    task.run_id = run_id;
    task.id = id;
    if (c.tasks().get(run_id, task.id)) {
      taken = true;
      return core::fail(core::ErrorCode::conflict, "run " + run_id + " already has a task '" + task.id + "'",
                        {{"runId", run_id}, {"taskId", task.id}});
    }
    if (hooks && record_hook_results(c, *run, *hooks)) c.runs().update(*run);
    task.title = input.title;
    task.body = input.body;
    task.source = "added";
    task.position = c.tasks().next_position(run_id);
    task.created_at = task.updated_at = core::now_iso8601();
    c.tasks().insert(task);
    detail::append_audit(c, run_id, "task.added", actor, {{"taskId", task.id}, {"title", task.title}});
    ended = finish_task_change(c, *run, actor);
    return task;
  });
  if (taken && hooks) record_void_transition_hooks(db_, bus_, run_id, *hooks);
  // A passive run whose tasks ended its session: afterExit, off this worker.
  if (result && ended) hooks_.after_session_end(std::move(*ended));
  return result;
}

core::Result<DeletedTask> TaskService::remove(const std::string& run_id, const std::string& task_id,
                                              const Actor& actor) {
  std::optional<SessionEnd> ended;
  auto result = detail::mutate_run<DeletedTask>(db_, bus_, run_id, [&](store::Transaction& c) -> core::Result<DeletedTask> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (auto ok = detail::check_allowed(Operation::task_delete_pending, *run, "delete tasks of"); !ok)
      return ok.failure();
    auto task = load_task(c, run_id, task_id);
    if (!task) return task.failure();
    if (task->status != core::TaskStatus::pending)
      return core::fail(core::ErrorCode::conflict,
                        "task '" + task_id + "' is " + std::string(core::to_string(task->status)) +
                            "; only pending tasks can be deleted",
                        {{"runId", run_id}, {"taskId", task_id}});
    c.tasks().remove(run_id, task_id);
    detail::append_audit(c, run_id, "task.deleted", actor, {{"taskId", task_id}});
    ended = finish_task_change(c, *run, actor);
    return DeletedTask{run_id, task_id, run->updated_at};
  });
  // A passive run whose tasks ended its session: afterExit, off this worker.
  if (result && ended) hooks_.after_session_end(std::move(*ended));
  return result;
}

}  // namespace agentry::engine

#include "core/lifecycle.hpp"

#include <algorithm>

namespace agentry::core {
namespace {

std::string status_text(RunStatus s) { return std::string(to_string(s)); }

std::optional<std::string> archived_refusal(const RunFacts& f) {
  if (f.archived) return "run is archived; unarchive it first";
  return std::nullopt;
}

/// Starting it again would run it without gates it was defined with.
std::optional<std::string> imported_hooks_refusal(const RunFacts& f) {
  if (f.hooks_not_imported.empty()) return std::nullopt;
  return "the run was imported without hooks it was defined with, which agentry cannot run here: " +
         f.hooks_not_imported + "; start a new run from its definitions instead";
}

}  // namespace

RunFacts facts_of(const Run& run) {
  RunFacts f;
  f.status = run.status;
  f.archived = run.archived;
  f.passive_backend = run.frozen.backend == passive_backend;
  f.tasks_locked = std::find(run.frozen.locked_fields.begin(), run.frozen.locked_fields.end(), "tasks") !=
                   run.frozen.locked_fields.end();
  f.damaged = run.damaged.has_value();
  f.dependencies_unmet = std::any_of(run.dependencies.begin(), run.dependencies.end(),
                                     [](const DependencyStatus& d) { return !d.satisfied; });
  for (const auto& hook : run.frozen.hooks_not_imported)
    f.hooks_not_imported += (f.hooks_not_imported.empty() ? "" : ", ") + hook;
  return f;
}

std::optional<std::string> refusal(Operation op, const RunFacts& f) {
  const bool running = f.status == RunStatus::running;
  if (f.damaged && op != Operation::archive && op != Operation::unarchive && op != Operation::remove &&
      op != Operation::abort)
    return "the stored run is damaged and cannot be used; archive and delete it";
  switch (op) {
    case Operation::ready:
      if (auto r = archived_refusal(f)) return r;
      if (auto r = imported_hooks_refusal(f)) return r;
      if (f.status != RunStatus::initialized)
        return "only an initialized run can be promoted to ready; this run is " + status_text(f.status);
      return std::nullopt;
    case Operation::resume:
      if (auto r = archived_refusal(f)) return r;
      if (auto r = imported_hooks_refusal(f)) return r;
      if (running) return "run is already running; abort it or queue a message instead";
      if (f.dependencies_unmet)
        return "the run waits on dependencies that have not succeeded yet; ready it and the daemon starts it "
               "when they have, or remove them";
      return std::nullopt;
    case Operation::abort:
      if (!running) return "run is not active (status " + status_text(f.status) + ")";
      return std::nullopt;
    case Operation::archive:
      if (f.archived) return "run is already archived";
      if (running) return "run is running; abort it before archiving";
      return std::nullopt;
    case Operation::unarchive:
      if (!f.archived) return "run is not archived";
      return std::nullopt;
    case Operation::reset:
      if (auto r = archived_refusal(f)) return r;
      if (running) return "run is running; abort it before resetting";
      if (f.status == RunStatus::initialized) return "run is already initialized";
      return std::nullopt;
    case Operation::remove:
      if (!f.archived) return "only archived runs can be deleted; archive it first";
      if (running) return "run is running; abort it first";
      return std::nullopt;
    case Operation::reconfigure:
      if (auto r = archived_refusal(f)) return r;
      if (f.status != RunStatus::initialized)
        return "only an initialized run can be reconfigured; this run is " + status_text(f.status);
      return std::nullopt;
    case Operation::task_set_status:
    case Operation::task_set_notes:
    case Operation::task_append_notes: return archived_refusal(f);
    case Operation::task_add:
    case Operation::task_edit_pending:
    case Operation::task_delete_pending:
      if (auto r = archived_refusal(f)) return r;
      if (f.tasks_locked) return "the run's tasks are locked by its definition (lockedFields: tasks)";
      return std::nullopt;
    case Operation::set_backend_session:
      if (auto r = archived_refusal(f)) return r;
      if (!f.passive_backend) return "the backend session can be set by hand only on passive runs";
      return std::nullopt;
    case Operation::queue_message:
      if (auto r = archived_refusal(f)) return r;
      // Queued messages wait for the live session to end; without one, nothing would
      // ever deliver them.
      if (!running)
        return "only a running run takes queued messages; this run is " + status_text(f.status) +
               " (resume it with the message instead)";
      return std::nullopt;
    case Operation::remove_queued_message: return archived_refusal(f);
    case Operation::edit_dependencies:
      if (auto r = archived_refusal(f)) return r;
      // Once a run has started, what it waited on is history; changing it would rewrite
      // why it started.
      if (f.status != RunStatus::initialized && f.status != RunStatus::ready)
        return "dependencies can change only while the run is initialized or ready; this run is " +
               status_text(f.status) + " (reset it first)";
      return std::nullopt;
  }
  return "unknown operation";
}

RunCapabilities capabilities(const RunFacts& f) {
  auto allowed = [&](Operation op) { return !refusal(op, f).has_value(); };
  RunCapabilities c;
  c.can_archive = allowed(Operation::archive);
  c.can_unarchive = allowed(Operation::unarchive);
  c.can_reset = allowed(Operation::reset);
  c.can_delete = allowed(Operation::remove);
  c.can_ready = allowed(Operation::ready);
  c.can_resume = allowed(Operation::resume);
  c.abort_reason = refusal(Operation::abort, f);
  c.can_abort = !c.abort_reason.has_value();
  c.reconfigure_reason = refusal(Operation::reconfigure, f);
  c.can_reconfigure = !c.reconfigure_reason.has_value();
  c.can_set_backend_session = allowed(Operation::set_backend_session);
  c.can_queue_message = allowed(Operation::queue_message);
  c.can_remove_queued_message = allowed(Operation::remove_queued_message);
  c.can_edit_dependencies = allowed(Operation::edit_dependencies);
  c.task_mutation.can_set_status = allowed(Operation::task_set_status);
  c.task_mutation.can_set_notes = allowed(Operation::task_set_notes);
  c.task_mutation.can_append_notes = allowed(Operation::task_append_notes);
  c.task_mutation.can_add = allowed(Operation::task_add);
  c.task_mutation.can_edit_pending = allowed(Operation::task_edit_pending);
  c.task_mutation.can_delete_pending = allowed(Operation::task_delete_pending);
  return c;
}

RunStatus passive_status_from_tasks(const std::vector<Task>& tasks) {
  if (std::any_of(tasks.begin(), tasks.end(), [](const Task& t) { return t.status == TaskStatus::blocked; }))
    return RunStatus::blocked;
  if (!tasks.empty() &&
      std::all_of(tasks.begin(), tasks.end(), [](const Task& t) { return t.status == TaskStatus::completed; }))
    return RunStatus::success;
  return RunStatus::running;
}

}  // namespace agentry::core

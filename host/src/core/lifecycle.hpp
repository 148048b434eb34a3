#pragma once
// What may happen to a run in its current state. One function, refusal(), answers
// every "may I?" question; the capability booleans shown to clients are derived
// from it, so a capability can never say yes to an operation the engine refuses.

#include "core/run.hpp"

#include <optional>
#include <string>

namespace agentry::core {

enum class Operation {
  ready,
  resume,  // start the first session of an initialized/ready run, or a new session of an ended one
  abort,
  archive,
  unarchive,
  reset,
  remove,
  reconfigure,
  task_set_status,
  task_set_notes,
  task_append_notes,
  task_add,
  task_edit_pending,
  task_delete_pending,
  set_backend_session,
  queue_message,           // queue a follow-up for the session after the live one
  remove_queued_message,
  edit_dependencies,       // add, remove or clear what the run waits on
};

/// The facts about a run that lifecycle decisions depend on.
struct RunFacts {
  RunStatus status = RunStatus::initialized;
  bool archived = false;
  bool passive_backend = false;
  bool tasks_locked = false;
  bool damaged = false;  // Run::damaged
  /// Some loaded dependency (Run::dependencies) has not succeeded. Only views and
  /// summaries load them; the engine's writes check dependencies themselves.
  bool dependencies_unmet = false;
  /// Imported without some of the hooks it was defined with (FrozenInputs::hooks_not_imported),
  /// named here: it may not start again, where it would run ungated.
  std::string hooks_not_imported{};
};

RunFacts facts_of(const Run& run);

/// nullopt when allowed; otherwise a sentence saying why not and what to do.
std::optional<std::string> refusal(Operation op, const RunFacts& facts);

struct TaskMutationCapabilities {
  bool can_set_status = false;
  bool can_set_notes = false;
  bool can_append_notes = false;
  bool can_add = false;
  bool can_edit_pending = false;
  bool can_delete_pending = false;
};

struct RunCapabilities {
  bool can_archive = false;
  bool can_unarchive = false;
  bool can_reset = false;
  bool can_delete = false;
  bool can_ready = false;
  bool can_resume = false;
  bool can_abort = false;
  std::optional<std::string> abort_reason;  // why not, when can_abort is false
  bool can_reconfigure = false;
  std::optional<std::string> reconfigure_reason;
  bool can_set_backend_session = false;
  bool can_queue_message = false;
  bool can_remove_queued_message = false;
  bool can_edit_dependencies = false;
  TaskMutationCapabilities task_mutation;
};

RunCapabilities capabilities(const RunFacts& facts);

/// The status a passive run derives from its tasks while it is running:
/// all completed (and at least one) -> success; any blocked -> blocked; else running.
RunStatus passive_status_from_tasks(const std::vector<Task>& tasks);

}  // namespace agentry::core

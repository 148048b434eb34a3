#pragma once
// taskTransition hooks around a task command (engine/tasks/task_commands.cpp): the
// change described the way both kinds of hook read it, the hooks run before anything is
// written, and a refusal recorded. As in agent-runner, a refused change is not made but
// what the hooks themselves did (state, patches, note, attachments) is kept.
//
// Sources (agent-runner's names): `task-set` (a status change), `task-append-notes` and
// `task-add`; the last two are judged by module hooks and the command built-in's
// {mode, command} form only (core::judges_task_source).

#include "core/result.hpp"
#include "core/run.hpp"
#include "engine/forward.hpp"
#include "engine/hooks/hook_runner.hpp"
#include "engine/requests.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::engine {

struct TaskTransition {
  std::string task_id;
  std::string source;                       // task-set | task-append-notes | task-add
  std::optional<core::Task> from;           // the task before; none when it is being added
  core::Task to;                            // the task as the change would leave it
  std::vector<std::string> changed_fields;  // of status, notes, title, body
};

/// Whether any of `run`'s taskTransition hooks judges changes from `source`.
bool has_transition_hooks(const core::Run& run, std::string_view source);

/// Runs the hooks that judge `t` (blocking, each bounded by its timeout and killed by an
/// abort of the run or a shutdown through `jobs`).
HookPhaseResult run_transition_hooks(const core::Run& run, const TaskTransition& t, const Actor& actor,
                                     HookJobs& jobs, HookServices services);

/// A refusal: records the hooks' results and the audit task.transition_refused, and
/// returns the CONFLICT (details.reason "hook_refused") the command answers with.
core::Failure refuse_transition(store::Store& db, events::EventBus& bus, const std::string& run_id,
                                const TaskTransition& t, const HookPhaseResult& hooks, const Actor& actor);

/// Hooks whose verdict a concurrent change made void: what they did is recorded all the
/// same.
void record_void_transition_hooks(store::Store& db, events::EventBus& bus, const std::string& run_id,
                                  const HookPhaseResult& hooks);

}  // namespace agentry::engine

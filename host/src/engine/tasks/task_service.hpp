#pragma once
// Tasks: a run's task list. Agents report progress through it (status, notes); users
// shape the plan (add, edit or delete pending tasks). On a running passive run a status
// change can end the session; a status change, appended notes and an added task may run
// the run's taskTransition hooks (engine/tasks/task_transition_hooks.hpp).

#include "core/result.hpp"
#include "core/run.hpp"
#include "engine/forward.hpp"
#include "engine/requests.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::engine {

struct DeletedTask {
  std::string run_id;
  std::string task_id;
  std::string updated_at;
};

class TaskService {
 public:
  /// `hooks` runs taskTransition hooks and the afterExit of a passive session a task
  /// change ended; `state_dir` and `attachments` are what those hooks may use.
  TaskService(store::Store& db, events::EventBus& bus, HookJobs& hooks, std::filesystem::path state_dir,
              Attachments& attachments)
      : db_(db), bus_(bus), hooks_(hooks), state_dir_(std::move(state_dir)), attachments_(attachments) {}

  core::Result<std::vector<core::Task>> list(const std::string& run_id);
  core::Result<core::Task> get(const std::string& run_id, const std::string& task_id);
  /// May wait on the run's taskTransition hooks (up to their timeouts): callers that
  /// must not wait ask transition_runs_hooks() first and call it elsewhere when it does.
  core::Result<core::Task> update(const std::string& run_id, const std::string& task_id, const TaskPatch& patch,
                                  const Actor& actor);
  /// Whether update() with `patch` would run taskTransition hooks now (a quick read).
  bool transition_runs_hooks(const std::string& run_id, const std::string& task_id, const TaskPatch& patch);
  /// Whether append_notes() (`task-append-notes`) or add() (`task-add`) may run
  /// taskTransition hooks (a quick read): callers that must not wait call them elsewhere.
  bool source_runs_hooks(const std::string& run_id, std::string_view source);
  /// Both may wait on taskTransition hooks, as update() does.
  core::Result<core::Task> append_notes(const std::string& run_id, const std::string& task_id,
                                        const std::string& text, const Actor& actor);
  core::Result<core::Task> add(const std::string& run_id, const NewTask& task, const Actor& actor);
  core::Result<DeletedTask> remove(const std::string& run_id, const std::string& task_id, const Actor& actor);

 private:
  store::Store& db_;
  events::EventBus& bus_;
  HookJobs& hooks_;
  std::filesystem::path state_dir_;
  Attachments& attachments_;
};

}  // namespace agentry::engine

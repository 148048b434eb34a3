#pragma once
// What an agent is told about its run's tasks. The run engine's loop (tasks decide
// success, retry, block) only works if the agent knows the tasks and how to report on
// them, so every session's first prompt of a run with tasks carries a task section:
// each task's id, status, title and body, and the exact `agentry task ...` commands
// that report progress from the agent's shell. A retry's nudge repeats the commands.
//
// The section is a template (definitions/template.hpp) with these keys:
//   {{task_list}}  the tasks, one block each       {{agentry}}  the command to run
//   {{run_id}}     the run                         {{task_count}}  how many tasks
// The default is built in; `<config dir>/templates/task-section.md` replaces it (a key it
// names that does not exist stays as written, with a warning in the log), and an agent
// or assignment with `taskPrompt: false` leaves it out.

#include "core/run.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace agentry::store {
class Transaction;
}  // namespace agentry::store

namespace agentry::engine {

struct TaskPromptSettings {
  /// This agentry, absolute: the commands name it so that they work whatever the agent's
  /// PATH is, and its directory goes first on the PATH agents get. Empty: plain "agentry".
  std::filesystem::path agentry_binary;
  std::filesystem::path config_dir;
};

/// The built-in template.
const std::string& default_task_section_template();

/// The section for `tasks` (empty when there are none or the run turns it off).
std::string render_task_section(const core::Run& run, const std::vector<core::Task>& tasks,
                                const TaskPromptSettings& settings);

/// The section for a session of `run` that opens now, with its tasks as stored.
std::string task_section(store::Transaction& c, const core::Run& run, const TaskPromptSettings& settings);

/// The reporting commands alone, for a retry's nudge (empty when the run turns it off).
std::string task_commands(const core::Run& run, const TaskPromptSettings& settings);

/// A session's first prompt with the section in place: for the first session after the
/// agent's and the assignment's instructions and before the message; for later ones,
/// before what the session was opened with.
std::string first_session_prompt(const core::FrozenInputs& frozen, const std::string& section,
                                  const std::string& extra_message);
std::string later_session_prompt(const std::string& section, const std::string& message);

/// `text` quoted for a POSIX shell when it needs to be.
std::string shell_quote(const std::string& text);

/// The `agent-runner` link beside `agentry_binary` (the build makes it; an agent-runner
/// command line then runs agentry's own, docs/agent-runner.md), absolute; empty when the
/// binary is unknown or no such file is there.
std::filesystem::path agent_runner_link(const std::filesystem::path& agentry_binary);
/// What `{{agent_runner_cmd}}` renders to: that link when it exists, else
/// `<agentry> agent-runner` (the same command set, one word longer), else "agent-runner".
std::string agent_runner_command(const std::filesystem::path& agentry_binary);

}  // namespace agentry::engine

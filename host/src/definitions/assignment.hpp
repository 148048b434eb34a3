#pragma once
// An assignment: a reusable piece of work (instructions, typed vars, a task list) that
// a run gives to an agent. File: assignments/<name>/assignment.md.

#include "core/hook.hpp"
#include "core/notify_target.hpp"
#include "core/usage.hpp"
#include "definitions/problem.hpp"
#include "definitions/vars.hpp"

#include <boost/json/value.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace agentry::definitions {

/// A task as the assignment lists it, resolved at load time.
struct ResolvedTask {
  std::string id;
  std::string title;
  std::string body;
  std::string source;  // "inline", "definition:<id>" or "file:<absolute path>"
  std::vector<core::HookSpec> hooks;  // taskTransition hooks of the task (its file's, or an inline task's)
};

struct AssignmentDefinition {
  std::string name;
  std::filesystem::path source_path;
  std::string description;
  std::optional<std::string> cwd;      // as written; the engine resolves it
  std::optional<std::string> message;  // a template: the first message to the agent
  int max_retries = 3;
  bool task_prompt = true;  // `taskPrompt: false` leaves the task section out of prompts
  boost::json::value schedule;  // kept as written (null when absent); not interpreted yet
  std::string caller_instructions;
  std::vector<VarSpec> vars;
  std::vector<ResolvedTask> tasks;
  std::vector<std::string> locked_fields;
  std::string instructions;  // the markdown body, a template
  /// `notify:`: completion notification targets (core/notify_target.hpp), origin "assignment".
  std::vector<core::NotifyTarget> notify;
  /// `budget:` what one run may use (core/usage.hpp); a start's wins, it beats the agent's.
  std::optional<core::Budget> budget;
  /// `hooks:`: lifecycle hooks (core/hook.hpp), origin "assignment".
  std::vector<core::HookSpec> hooks;
  /// `worktree:`: each run gets its own git worktree; wins over the agent's.
  std::optional<core::HookSpec> worktree;
  std::vector<Problem> warnings;
};

}  // namespace agentry::definitions

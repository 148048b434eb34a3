#pragma once
// Lifecycle hooks as a run freezes them: what runs (an executable's argv, a built-in or
// a JavaScript module run by node),
// at which phase, under which `when` filter, with which timeout. Plain data; the
// definitions module parses them, the engine runs them.

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::core {

enum class HookPhase { prepare, before_attempt, after_attempt, after_exit, task_transition };

std::string_view to_string(HookPhase phase);
std::optional<HookPhase> parse_hook_phase(std::string_view text);
/// The `when` keys a phase's hooks may filter on.
std::vector<std::string_view> hook_when_keys(HookPhase phase);

inline constexpr int default_hook_timeout_sec = 30;
inline constexpr int max_hook_timeout_sec = 120;

/// The built-in hooks, implemented in C++.
inline constexpr std::string_view builtin_command = "command";
inline constexpr std::string_view builtin_git_worktree = "git-worktree";
inline constexpr std::string_view builtin_require_children_success = "require-children-success";

struct HookSpec {
  std::string id;      // unique within the run
  HookPhase phase = HookPhase::prepare;
  /// Executable hooks: argv, argv[0] absolute (resolved against the definition's
  /// directory) or a bare name looked up in PATH. Empty for built-ins other than `command`.
  std::vector<std::string> run;
  std::string builtin;          // empty for `run:` and module hooks
  /// Module hooks (agent-runner's `name:` / `path:` entries): the module file, absolute,
  /// resolved when the definition loaded; and the entry as written ("name:<n>" or
  /// "path:<p>"). Empty for the other kinds.
  std::string module_path;
  std::string module_source;
  boost::json::object options;  // a built-in's `with:` map
  /// key -> accepted values; every key must match (see hook_when_keys).
  std::map<std::string, std::vector<std::string>> when;
  int timeout_sec = default_hook_timeout_sec;  // module hooks: 0 = the daemon's setting
  /// "assignment" or "task:<id>": a task's hooks see only transitions of that task.
  std::string origin;
  std::string source_path;  // the definition file that declared it

  bool is_module() const { return !module_path.empty(); }
};

/// One execution of a hook, compact (RunDetail.hookAudits): never its stdout, at most
/// the start of its stderr.
struct HookAudit {
  std::string hook_id;
  HookPhase phase = HookPhase::prepare;
  /// ok | blocked | refused | failed | timedOut | cancelled (an abort or shutdown stopped it)
  std::string outcome;
  std::string message;  // the block/refuse reason, or why it failed
  std::int64_t duration_ms = 0;
  std::optional<int> exit_code;
  std::string stderr_excerpt;  // first 1 KiB, valid UTF-8
  bool output_truncated = false;
  std::string created_at;
};

inline constexpr std::size_t hook_stderr_excerpt_bytes = 1024;

boost::json::object to_json(const HookAudit& audit);

/// agent-runner's forms of our built-ins, selected by their `with` keys: the command
/// built-in's {mode, command, args?, cwd?} and git-worktree's {repo, from, branch, path,
/// collision?}. Ours are {argv} and {base}.
bool is_command_status_or_json_form(const HookSpec& hook);
bool is_git_worktree_repo_form(const HookSpec& hook);

/// Whether a taskTransition hook judges changes from `source` (agent-runner's
/// `task-set`, `task-append-notes`, `task-add`): every hook judges a task set's status
/// change; appended notes and added tasks only agent-runner's kinds of hook, modules
/// and the command built-in's {mode, command} form (agentry's executable contract and
/// require-children-success speak of status changes only).
bool judges_task_source(const HookSpec& hook, std::string_view source);

/// Whether `hook` applies to an event whose filterable facts are `facts`
/// (e.g. {"to": "completed", "task": "review"}). A `when` key with no fact never matches.
bool hook_matches(const HookSpec& hook, const std::map<std::string, std::string>& facts);

boost::json::object to_json(const HookSpec& hook);
HookSpec hook_spec_from_json(const boost::json::value& value);
boost::json::array to_json(const std::vector<HookSpec>& hooks);
std::vector<HookSpec> hook_specs_from_json(const boost::json::value& value);

}  // namespace agentry::core

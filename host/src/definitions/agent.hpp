#pragma once
// An agent: which backend runs it, how, and its role instructions.
// File: agents/<name>/agent.md (front matter + markdown body).

#include "core/hook.hpp"
#include "core/notify_target.hpp"
#include "core/usage.hpp"
#include "definitions/problem.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::definitions {

struct BackendArgs {
  std::vector<std::string> extra_args;  // appended to the backend's command line
};

/// An agent's session time limit when its file sets none (as agent-runner's): one hour.
inline constexpr int default_agent_timeout_sec = 3600;

/// The name of agents synthesized from a request with no agent and a backend
/// (engine/ad_hoc_agent.hpp): no agent file may take it.
inline constexpr std::string_view reserved_agent_name = "ad-hoc";

struct AgentDefinition {
  std::string name;
  std::filesystem::path source_path;
  std::string description;
  std::string backend;
  std::optional<std::string> model;   // nullopt = the backend's default
  std::optional<std::string> effort;  // nullopt = the backend's default
  /// Time limit of one session, in seconds; 0 = no limit. default_agent_timeout_sec
  /// when the file does not say.
  int timeout_sec = default_agent_timeout_sec;
  /// `budget:` what one run may use (core/usage.hpp); an assignment's or a start's wins.
  std::optional<core::Budget> budget;
  bool unrestricted = true;
  bool task_prompt = true;  // `taskPrompt: false` leaves the task section out of prompts
  boost::json::object backend_config;             // backend name -> its settings, uninterpreted
  std::map<std::string, BackendArgs> backend_args;  // backend name -> extra arguments
  std::vector<std::string> locked_fields;
  /// Overrides that are locked by default and that this agent lets callers use anyway
  /// (default_locked_overrides()).
  std::vector<std::string> unlocked_fields;
  std::optional<std::string> launcher;  // a launcher name; "direct": none (built in)
  /// `launcher: {command, args}` (agent-runner's inline launcher): the program, then its
  /// arguments, frozen as the launcher "inline".
  std::optional<std::vector<std::string>> inline_launcher;
  /// `executionEnvironment:` an environment name (environments/<name>.yaml): where the
  /// agent's process runs; nullopt = on the host, as the user.
  std::optional<std::string> execution_environment;
  std::string instructions;             // the markdown body: the agent's role
  /// `notify:`: completion notification targets (core/notify_target.hpp), origin "agent".
  std::vector<core::NotifyTarget> notify;
  /// `worktree:`: each run gets its own git worktree (a prepare hook, core/hook.hpp).
  std::optional<core::HookSpec> worktree;
  /// `placement: {labels: [...]}`: only a member with every label runs it (core/placement.hpp).
  std::vector<std::string> placement_labels;
  std::vector<Problem> warnings;        // non-fatal problems found while loading
};

/// Per-run overrides that can make a backend run another program (a command, a binary,
/// a mock exec step: backendConfig; a launcher; another backend) or run it less confined
/// (an environment; unrestricted): locked unless the agent lists them in
/// unlockedFields, because whoever reaches the API would otherwise choose what runs.
const std::vector<std::string>& default_locked_overrides();

/// backendConfig for `backend` (usually the agent's own), or an empty object.
boost::json::object backend_config_for(const AgentDefinition& agent, std::string_view backend);
/// backendArgs.<backend>.extraArgs, or nothing.
std::vector<std::string> extra_args_for(const AgentDefinition& agent, std::string_view backend);

}  // namespace agentry::definitions

#pragma once
// Typed commands the engine accepts. Transports (HTTP, WebSocket, CLI) validate their
// input and build these; the engine never sees raw JSON bodies.

#include "core/dependency.hpp"
#include "core/usage.hpp"
#include "core/notify_target.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace agentry::engine {

/// Who asked: recorded in the audit trail.
struct Actor {
  std::string name = "api";  // "api", "ws", "cli", "engine", "daemon"
};

/// Where caller-supplied vars came from; a var may accept only some sources.
enum class VarOrigin { cli, web };

/// Per-run overrides of definition fields; a field locked by the definition refuses them.
struct RunOverrides {
  std::optional<std::string> message;
  std::optional<std::string> cwd;
  std::optional<std::string> model;
  std::optional<std::string> effort;
  std::optional<int> timeout_sec;
  std::optional<int> max_retries;
  std::optional<boost::json::object> backend_config;
  std::optional<std::string> launcher;
  /// An environment name: where the agent runs instead of the agent's executionEnvironment.
  std::optional<std::string> environment;
  /// Another backend than the agent's; without an agent, the ad-hoc agent's
  /// (engine/ad_hoc_agent.hpp).
  std::optional<std::string> backend;
  /// Whether the backend may bypass its own safety checks, instead of the agent's setting.
  std::optional<bool> unrestricted;
  /// What the run may use, instead of the assignment's or the agent's budget.
  std::optional<core::Budget> budget;
};

struct InitRequest {
  std::string agent;                      // name or direct path; empty: the ad-hoc agent (overrides.backend)
  std::optional<std::string> assignment;  // name or direct path
  std::optional<std::string> definition_cwd;  // where a project's .agentry/ is looked up
  std::optional<std::string> caller_cwd;      // the caller's working directory
  std::optional<std::string> parent_run_id;
  std::optional<std::string> run_group_id;
  std::optional<std::string> backend_session_id;
  std::optional<std::string> name;
  boost::json::object cli_vars;
  VarOrigin var_origin = VarOrigin::web;
  RunOverrides overrides;
  /// What the run waits on (agentry's extension of the start contract). A start whose
  /// dependencies are not all met leaves the run ready; the daemon starts it later.
  std::vector<core::Dependency> dependencies;
  /// With a parent: tell it, once per session, how this run's session ended
  /// (engine/parent_completion/parent_notifications.hpp). Unset: yes when the run has a parent.
  std::optional<bool> notify_parent_on_complete;
  /// With a parent and no run_group_id: join the parent's group (default) or, false,
  /// make a group of its own (its id).
  bool inherit_run_group = true;
  /// Completion notification targets of this run only (webhooks; validated by the
  /// transport), frozen after the agent's and the assignment's.
  std::vector<core::NotifyTarget> notify;
  /// `placement: {labels}`: labels a member needs to run it, beside the agent's.
  std::vector<std::string> placement_labels;
};

struct ResumeRequest {
  std::optional<std::string> message;  // the follow-up prompt for the new session
};

/// A question about a run's state, answered by its backend without a turn (ext/ask.h).
struct AskRequest {
  std::string question;
  std::chrono::milliseconds timeout{60000};
};

struct AskAnswer {
  std::string ask_id;
  std::string run_id;
  std::string backend;
  std::string answer;
  boost::json::object usage;  // empty when the backend reported none
  std::int64_t duration_ms = 0;
};

struct ReconfigureRequest {
  std::optional<boost::json::object> vars;  // merged over the run's vars; null removes one
  VarOrigin var_origin = VarOrigin::web;
  std::optional<std::string> message;
};

struct TaskPatch {
  std::optional<std::string> status;
  std::optional<std::string> notes;
  std::optional<std::string> title;
  std::optional<std::string> body;
};

struct NewTask {
  std::optional<std::string> id;  // generated when absent
  std::string title;
  std::string body;
};

}  // namespace agentry::engine

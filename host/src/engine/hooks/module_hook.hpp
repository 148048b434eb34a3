#pragma once
// Hooks written as JavaScript modules (agent-runner's `name:` / `path:` hook entries),
// run by node through agentry's own host script (share/agentry/hook-host.mjs). One node
// process per call, in the run's cwd, in its own process group, bounded by
// AGENTRY_MODULE_HOOK_TIMEOUT_SEC (or the hook's timeoutSec) and killed by the same
// cancellations as executable hooks (an abort of the run, agentry stopping).
//
//   stdin:  one JSON line {module, phase, context}; the context is agent-runner's
//           (docs/definitions.md "Module hooks"): schemaVersion, phase, assignment, run,
//           vars, state, attachments, tasks, config, and the phase's own members.
//   stdout: one JSON line {ok: true, result} or {ok: false, error}.
//
// The result is mapped onto what agentry's hooks can do (ModuleVerdict); what agentry
// cannot do at that phase is refused (the hook fails, with a message saying so) rather
// than ignored.

#include "core/hook.hpp"
#include "core/run.hpp"
#include "engine/hooks/hook_attachments.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace agentry::engine {

struct HookInvocation;

/// How module hooks run in this process: set once by the Engine from the settings
/// (AGENTRY_NODE, AGENTRY_MODULE_HOOK_TIMEOUT_SEC) and where the binary is.
struct ModuleHookSettings {
  std::string node = "node";
  int timeout_sec = 120;
  /// hook-host.mjs; empty: <this binary's dir>/../share/agentry/hook-host.mjs.
  std::filesystem::path host_script{};
};

void configure_module_hooks(ModuleHookSettings settings);
ModuleHookSettings module_hook_settings();

/// One task change a hook asked for (`mutate.patchTasks`).
struct HookTaskPatch {
  std::string task_id;
  std::optional<core::TaskStatus> status;
  std::optional<std::string> notes_replace;
  std::optional<std::string> notes_append;
};

/// What a module hook's result means in agentry's terms. `failure` set: the result could
/// not be used (malformed, or asks what agentry cannot do here) and the hook failed.
struct ModuleVerdict {
  std::optional<std::string> block;   // block (attempt phases), or a rejection (taskTransition)
  /// prepare: the first prompt (reinvoke's followUpPrompt, else mutate.run.initialPrompt);
  /// beforeAttempt: the attempt's (followUpPrompt, else mutate.run.attemptPrompt);
  /// afterAttempt: the next attempt's (followUpPrompt, else mutate.run.attemptPrompt).
  std::optional<std::string> prompt;
  bool reinvoke = false;              // action "reinvoke" (afterAttempt: one more attempt)
  /// prepare only: mutate.run without initialPrompt (checked by engine/hooks/prepare_at_init),
  /// and mutate.vars, to merge into the run's vars.
  boost::json::object run;
  boost::json::object vars;
  std::optional<std::string> note;
  std::optional<bool> pinned;
  boost::json::object state;          // mutate.state, to merge shallowly
  std::vector<HookTaskPatch> patch_tasks;
  HookAttachmentChanges attachments;  // mutate.attachments
  std::optional<std::string> failure;
};

/// Maps a phase function's return value (null: continue / accept).
ModuleVerdict map_module_result(core::HookPhase phase, const boost::json::value& result);

/// What the context is built from, besides the run and the invocation.
struct ModuleHookInputs {
  std::string prompt;                  // beforeAttempt: the attempt's prompt as it stands; prepare: the first prompt
  boost::json::object state;           // the run's hook state as it stands
  std::vector<core::Task> tasks;       // the run's tasks
  std::vector<core::Attachment> attachments;
  std::optional<int> attempt_index_in_session;
};

/// The context object the phase function receives.
boost::json::object module_hook_context(const core::Run& run, const core::HookSpec& hook, const HookInvocation& inv,
                                        const ModuleHookInputs& inputs);

/// Runs the hook once (blocking): fills the audit's outcome (ok | failed | timedOut |
/// cancelled), message, duration, exit code and stderr, and returns the result on "ok".
/// `cancelled` is polled while node runs; a reason kills its process group.
std::optional<boost::json::value> run_module_hook(const core::Run& run, const core::HookSpec& hook,
                                                  const boost::json::object& context,
                                                  const std::function<std::optional<std::string>()>& cancelled,
                                                  core::HookAudit& audit);

}  // namespace agentry::engine

#pragma once
// What every hook that runs a program shares: who its writes are audited as, the output
// it may print, and how the end of its process (cancelled, timed out, not started,
// exited) is told in the hook's audit. Used by executable hooks (hook_runner.cpp), the
// `command` built-in (command_hook.cpp) and module hooks (module_hook.cpp); each decides
// what an exit and its output mean.

#include "core/hook.hpp"
#include "engine/requests.hpp"
#include "process/runner.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace agentry::engine {

/// The actor of everything a hook's result changes (audit trail).
inline const Actor hook_actor{"hook"};

inline constexpr std::size_t hook_max_stdout_bytes = 64 * 1024;
inline constexpr std::size_t hook_max_stderr_bytes = 16 * 1024;

/// How long a hook's process may run and print. The command forms use the hook's
/// timeout; module hooks have their own default and a larger answer.
struct HookProcessLimits {
  int timeout_sec = 0;  // clamped to 1 .. core::max_hook_timeout_sec
  std::size_t max_stdout_bytes = hook_max_stdout_bytes;
  /// Said before the error of a program that could not start (e.g. which setting names it).
  std::string not_started_prefix;
};

/// Runs `request` (blocking) within `limits`, killed when `cancelled` (may be empty) says
/// why. Fills the audit's duration, exit code, stderr excerpt and truncation. Returns the
/// result when the program exited (any code); otherwise nullopt with the audit's outcome
/// (cancelled | timedOut | failed) and message set.
std::optional<process::RunResult> run_hook_process(const process::RunRequest& request, const HookProcessLimits& limits,
                                                   const std::function<std::optional<std::string>()>& cancelled,
                                                   core::HookAudit& audit);

/// The audit message of a hook whose stdout passed hook_max_stdout_bytes.
std::string hook_output_too_long_message();

}  // namespace agentry::engine

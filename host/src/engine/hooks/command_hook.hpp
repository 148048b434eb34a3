#pragma once
// agent-runner's form of the `command` built-in: with: {mode: status|json, command,
// args?, cwd?}. The program runs without a shell, in `cwd` (relative to the run's cwd)
// or the run's cwd, with nothing on stdin, in its own process group, bounded by the
// hook's timeout and killed by the same cancellations as executable hooks.
//
//   status: exit 0 = continue (taskTransition: accept); any other exit = block
//           (taskTransition: reject) with its stderr, else its stdout, as the reason.
//   json:   exit 0 and stdout one JSON result, exactly what a module hook's phase
//           function returns; any other exit, or output that is not JSON, fails the hook.
//
// Either way the answer is a module hook's result, so it is mapped by the same code
// (map_module_result) and can do exactly what a module hook can.

#include "core/hook.hpp"
#include "core/run.hpp"

#include <boost/json/value.hpp>

#include <functional>
#include <optional>
#include <string>

namespace agentry::engine {

/// Runs the hook once (blocking): fills the audit's outcome (ok | failed | timedOut |
/// cancelled), message, duration, exit code and stderr, and returns the result (null:
/// continue / accept) on "ok".
std::optional<boost::json::value> run_command_form_hook(const core::Run& run, const core::HookSpec& hook,
                                                        const std::function<std::optional<std::string>()>& cancelled,
                                                        core::HookAudit& audit);

}  // namespace agentry::engine

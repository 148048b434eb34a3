#include "engine/hooks/hook_process.hpp"

#include "core/utf8.hpp"

#include <algorithm>
#include <chrono>

namespace agentry::engine {

std::optional<process::RunResult> run_hook_process(const process::RunRequest& request, const HookProcessLimits& bounds,
                                                   const std::function<std::optional<std::string>()>& cancelled,
                                                   core::HookAudit& audit) {
  process::RunLimits limits;
  limits.timeout = std::chrono::seconds(std::clamp(bounds.timeout_sec, 1, core::max_hook_timeout_sec));
  limits.max_stdout_bytes = bounds.max_stdout_bytes;
  limits.max_stderr_bytes = hook_max_stderr_bytes;
  if (cancelled) limits.cancelled = [&cancelled] { return cancelled().has_value(); };
  auto result = process::run_program(request, limits);
  audit.duration_ms = result.duration.count();
  audit.exit_code = result.exit_code;
  audit.stderr_excerpt =
      core::sanitize_utf8(std::string_view(result.stderr_text).substr(0, core::hook_stderr_excerpt_bytes));
  audit.output_truncated = result.stdout_truncated || result.stderr_truncated;
  if (result.cancelled) {
    audit.outcome = "cancelled";
    audit.message = (cancelled ? cancelled().value_or("cancelled") : std::string("cancelled")) +
                    "; its process group was killed";
    return std::nullopt;
  }
  if (result.timed_out) {
    audit.outcome = "timedOut";
    audit.message = "did not finish within " + std::to_string(limits.timeout.count() / 1000) +
                    " s; its process group was killed";
    return std::nullopt;
  }
  if (!result.started) {
    audit.outcome = "failed";
    audit.message = bounds.not_started_prefix + result.error;
    return std::nullopt;
  }
  if (!result.exit_code) {
    audit.outcome = "failed";
    audit.message = result.error;
    return std::nullopt;
  }
  return result;
}

std::string hook_output_too_long_message() {
  return "its output exceeded " + std::to_string(hook_max_stdout_bytes / 1024) + " KiB";
}

}  // namespace agentry::engine

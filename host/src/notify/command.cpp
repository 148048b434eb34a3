#include "notify/command.hpp"

#include "process/runner.hpp"

namespace agentry::notify {

CommandResult run_command(const CommandRequest& request, const CommandLimits& limits) {
  process::RunLimits run_limits;
  run_limits.timeout = limits.timeout;
  // The cap was shared by both streams; each gets it now, only the start of stderr matters.
  run_limits.max_stdout_bytes = limits.max_output_bytes;
  run_limits.max_stderr_bytes = limits.max_output_bytes;
  auto result = process::run_program({request.argv, request.stdin_data, request.env, {}}, run_limits);
  CommandResult out;
  out.delivered = result.started && result.exit_code == 0 && !result.timed_out;
  out.permanent = result.not_startable;
  out.error = std::move(result.error);
  return out;
}

}  // namespace agentry::notify

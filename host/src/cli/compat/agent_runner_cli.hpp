#pragma once
// agent-runner's command set for agents (docs/agent-runner.md "The agent-runner
// command"): what definitions written for agent-runner run from an agent's shell
// (`agent-runner task set "$AGENT_RUNNER_RUN_ID" review --status completed`, `agent-runner
// run status <run> --output-format json --field tasks`, ...), in its grammar and with its
// output shapes, on agentry's own client: embedded, or connected exactly as every agentry
// command is (AGENTRY_CONNECT, which agents get), or to the daemon --connect /
// AGENT_RUNNER_CONNECT names (agentry's own port or its compat listener).
//   agent_runner_args.cpp        the words and options, checked
//   agent_runner_cli.cpp         which command a line is; what every command shares
//   agent_runner_*_verbs.cpp     the commands by job (agent_runner_invocation.hpp)
//   agent_runner_output.cpp      their text lines and JSON (api/compat/compat_dto.hpp)

#include "cli/command_context.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace agentry::cli::compat {

/// `agent-runner <args>` (args without the program's name); the process's exit code:
/// 0 success, 1 exhausted, 2 blocked, 3 refused (arguments, validation, connectivity), 4
/// failed, 130 aborted.
int agent_runner_main(int argc, char** argv);

/// The same with the surroundings given (tests, and agent_runner_main).
int run_agent_runner(const std::vector<std::string>& args, Environment env, std::ostream& out, std::ostream& err,
                     ClientFactory factory);

}  // namespace agentry::cli::compat

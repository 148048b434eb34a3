#pragma once
// The agentry command line: `serve` and the client commands (see docs/cli.md).

#include "cli/command_context.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace agentry::cli {

int run_app(int argc, char** argv);

/// The CLI on `args` (without the program name), with the environment, output streams
/// and client factory given: what run_app() does, and what tests drive.
int run_cli(const std::vector<std::string>& args, Environment env, std::ostream& out, std::ostream& err,
            ClientFactory factory);

}  // namespace agentry::cli

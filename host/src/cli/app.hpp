#pragma once
// The agentry command line: subcommands and their options.

namespace agentry::cli {

int run_app(int argc, char** argv);

}  // namespace agentry::cli

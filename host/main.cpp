// agentry: one binary, the daemon (`agentry serve`) and the CLI. Called by the name
// `agent-runner` (the link the build puts beside it), or as `agentry agent-runner ...`,
// it is agent-runner's command set for agents instead (docs/agent-runner.md).
#include "cli/app.hpp"
#include "cli/compat/agent_runner_cli.hpp"

#include <cstring>
#include <string_view>

namespace {

bool called_as_agent_runner(const char* argv0) {
  std::string_view name = argv0 ? argv0 : "";
  if (auto slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  return name == "agent-runner";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 1 && called_as_agent_runner(argv[0])) return agentry::cli::compat::agent_runner_main(argc - 1, argv + 1);
  if (argc >= 2 && std::strcmp(argv[1], "agent-runner") == 0)
    return agentry::cli::compat::agent_runner_main(argc - 2, argv + 2);
  return agentry::cli::run_app(argc, argv);
}

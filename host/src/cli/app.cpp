#include "cli/app.hpp"

#include "cli/exit_codes.hpp"
#include "cli/serve_command.hpp"

#include <CLI/CLI.hpp>

#include <iostream>

namespace agentry::cli {

int run_app(int argc, char** argv) {
  CLI::App app{"agentry: durable, observable, resumable AI agent runs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", AGENTRY_VERSION);

  ServeOptions serve;
  auto* serve_cmd = app.add_subcommand("serve", "Run the local control plane (HTTP API and dashboard)");
  serve_cmd->add_option("--listen", serve.listen, "WebSocket URL to listen on; HTTP is served on the same port")
      ->envname("AGENTRY_LISTEN")
      ->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? exit_code::success : exit_code::config_error;
  }
  if (serve_cmd->parsed()) return run_serve(serve);
  return exit_code::success;
}

}  // namespace agentry::cli

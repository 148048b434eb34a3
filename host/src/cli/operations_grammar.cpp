// The grammar of the commands that look after agentry on this machine rather than runs
// (command_grammar.hpp): `service install|uninstall|status` and `doctor`. What they do
// is in commands/service_commands.cpp and commands/doctor_command.cpp (docs/operations.md).

#include "cli/command_grammar.hpp"

#include <memory>

namespace agentry::cli {

void add_operations_commands(CLI::App& app, Invocation& inv) {
  auto* service = app.add_subcommand(
      "service", "Run the daemon as a systemd user service: install (write, enable, start), uninstall, status");
  service->require_subcommand(1);
  auto o = std::make_shared<ServiceOptions>();
  auto* install = service->add_subcommand(
      "install",
      "Write ~/.config/systemd/user/agentry.service (serve with this shell's AGENTRY_* settings and PATH; secrets in "
      "a mode-0600 environment file), then enable and start it; without systemd, print it and the commands to run");
  install->add_flag("--print", o->print, "Only print the unit; write and enable nothing");
  install->add_option("--listen", o->listen,
                      "The address serve listens on (default: $AGENTRY_LISTEN, else "
                      "ws://127.0.0.1:4773/)");
  on_parsed(install, inv, [o](CommandContext& ctx) { return service_install_command(ctx, *o); });
  auto* uninstall =
      service->add_subcommand("uninstall", "Stop and disable the service; remove its unit and environment file");
  on_parsed(uninstall, inv, [](CommandContext& ctx) { return service_uninstall_command(ctx); });
  auto* status = service->add_subcommand("status", "Whether the unit is installed, enabled and active");
  on_parsed(status, inv, [](CommandContext& ctx) { return service_status_command(ctx); });

  auto* doctor = app.add_subcommand(
      "doctor",
      "Check what runs need here: the store, definitions, backends and their agent CLIs, git, the dashboard, auth, "
      "disk space; each problem with how to fix it. Exit 0 when nothing failed, 1 otherwise");
  on_parsed(doctor, inv, [](CommandContext& ctx) { return doctor_command(ctx); });
}

}  // namespace agentry::cli

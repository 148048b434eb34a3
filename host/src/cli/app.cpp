// The top of the command line (command_grammar.hpp): the global options, `serve`, the
// commands about agentry itself and its projects rather than a run (backends,
// definitions, config, trust), then parsing, the settings, and running what was asked.
// The other commands' grammar is in run_grammar.cpp and run_records_grammar.cpp.

#include "cli/app.hpp"

#include "cli/command_grammar.hpp"
#include "cli/exit_codes.hpp"
#include "cli/commands/trigger_commands.hpp"
#include "cli/serve_command.hpp"
#include "core/log.hpp"

#include <algorithm>
#include <iostream>
#include <memory>

namespace agentry::cli {
namespace {

void add_config_command(CLI::App& app, Invocation& inv) {
  auto* cmd = app.add_subcommand(
      "config", "Print the effective settings (AGENTRY_* variables and flags) and where each came from");
  on_parsed(cmd, inv, [](CommandContext& ctx) { return config_command(ctx); });
}

void add_trust_command(CLI::App& app, Invocation& inv) {
  auto o = std::make_shared<TrustOptions>();
  auto* cmd = app.add_subcommand(
      "trust",
      "Trust a project's .agentry/ definitions as they are now (review them first): until then they may not run "
      "programs, read the daemon's environment, or replace your own definitions; any change needs trust again");
  cmd->add_option("dir", o->dir, "The project (or a directory inside it); default: the current directory");
  auto* revoke = cmd->add_flag("--revoke", o->revoke, "Stop trusting the project");
  auto* status = cmd->add_flag("--status", o->status, "Only say whether the project is trusted");
  auto* list = cmd->add_flag("--list", o->list, "List the trusted projects");
  revoke->excludes(status)->excludes(list);
  status->excludes(list);
  on_parsed(cmd, inv, [o](CommandContext& ctx) { return trust_command(ctx, *o); });
}

void add_mcp_command(CLI::App& app, Invocation& inv) {
  auto* cmd = app.add_subcommand(
      "mcp", "Serve the Model Context Protocol on stdin/stdout, for agents that drive runs (docs/mcp.md); use "
             "--connect so runs go on in the daemon");
  on_parsed(cmd, inv, [](CommandContext& ctx) { return mcp_command(ctx, std::cin); });
}

void add_info_commands(CLI::App& app, Invocation& inv) {
  auto* backends = app.add_subcommand("backends", "List the backends agentry can run agents on, and plugins that failed");
  on_parsed(backends, inv, [](CommandContext& ctx) { return backends_command(ctx); });
  auto u = std::make_shared<UsageOptions>();
  auto* usage = app.add_subcommand("usage", "Tokens runs used and what they cost, per agent, day, group, run or session");
  usage->add_option("--by", u->by, "agent (default), day, group, run or session");
  usage->add_option("--since", u->since, "First UTC day counted, YYYY-MM-DD");
  usage->add_option("--until", u->until, "Last UTC day counted, YYYY-MM-DD");
  on_parsed(usage, inv, [u](CommandContext& ctx) { return usage_command(ctx, *u); });
  auto* daemons = app.add_subcommand(
      "daemons", "List the daemons serving this store (one on SQLite; every member on PostgreSQL): state, load, URL");
  on_parsed(daemons, inv, [](CommandContext& ctx) { return daemons_command(ctx); });
  auto* triggers = app.add_subcommand("triggers", "Inbound triggers: signed webhooks that start an assignment");
  triggers->require_subcommand(1);
  auto* triggers_list = triggers->add_subcommand(
      "list", "List the config directory's triggers: assignment, scheme, whether the secret is set (never its value)");
  on_parsed(triggers_list, inv, [](CommandContext& ctx) { return triggers_list_command(ctx); });
  auto o = std::make_shared<DefinitionOptions>();
  auto* cmd = app.add_subcommand("definitions", "List definitions, or show one: definitions [KIND [NAME]]");
  cmd->alias("defs");
  cmd->add_option("kind", o->kind, "agents, assignments, launchers, environments or tasks (default: every kind)");
  cmd->add_option("name", o->name, "A definition's name or path: show it");
  cmd->add_option("--cwd", o->cwd, "Project directory whose .agentry/ is searched too (default: the current one)");
  on_parsed(cmd, inv, [o](CommandContext& ctx) { return definitions_command(ctx, *o); });

  // The execution environments (docs/environments.md) as a command of their own: the same
  // listing and checking as `definitions environments [NAME]`.
  auto* environments = app.add_subcommand(
      "environments", "List, show or validate execution environments; the status and cleanup of their containers");
  environments->require_subcommand(1);
  auto e = std::make_shared<DefinitionOptions>();
  e->kind = "environments";
  auto* list = environments->add_subcommand("list", "List the environments (yours and a trusted project's)");
  list->add_option("--cwd", e->cwd, "Project directory whose .agentry/ is searched too (default: the current one)");
  on_parsed(list, inv, [e](CommandContext& ctx) { return definitions_command(ctx, *e); });
  for (auto [verb, help] : {std::pair{"show", "Show one environment as a run would freeze it"},
                            std::pair{"validate", "Check one environment: exit 0 when it is usable, else its problems"}}) {
    auto* one = environments->add_subcommand(verb, help);
    one->add_option("name", e->name, "The environment's name or path")->required();
    one->add_option("--cwd", e->cwd, "Project directory whose .agentry/ is searched too (default: the current one)");
    on_parsed(one, inv, [e](CommandContext& ctx) { return definitions_command(ctx, *e); });
  }
  auto* status = environments->add_subcommand(
      "status", "List the containers agentry made for runs (or uses, existing ones): state, run or group, users");
  on_parsed(status, inv, [](CommandContext& ctx) { return environments_status_command(ctx); });
  auto all = std::make_shared<bool>(false);
  auto* cleanup = environments->add_subcommand(
      "cleanup", "Remove the containers of ended runs (cleanup policy terminal) that no live run uses");
  cleanup->add_flag("--all", *all, "Every container agentry made that no live run uses, whatever its cleanup policy");
  on_parsed(cleanup, inv, [all](CommandContext& ctx) { return environments_cleanup_command(ctx, *all); });
}

}  // namespace

int run_app(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args.front() == "container-exec")
    return container_exec_command(std::vector<std::string>(args.begin() + 1, args.end()));
  return run_cli(args, Environment::current(), std::cout, std::cerr, open_client);
}

int run_cli(const std::vector<std::string>& args, Environment env, std::ostream& out, std::ostream& err,
            ClientFactory factory) {
  CLI::App app{"agentry: durable, observable, resumable AI agent runs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", AGENTRY_VERSION);
  app.fallthrough();  // global options are accepted after the subcommand too
  app.footer("Commands work embedded (in this process, on $AGENTRY_HOME) unless --connect or AGENTRY_CONNECT names a "
             "daemon. Exit codes: 0 ok, 1 exhausted, 2 blocked, 3 refused, 4 failed, 130 cancelled. See docs/cli.md.");

  Invocation invocation;
  auto* connect = app.add_option("--connect", invocation.global.connect,
                                 "The daemon to use: its WebSocket URL, e.g. ws://127.0.0.1:4773/, or its Unix socket, "
                                 "e.g. unix:///run/agentry/agentry.sock (default: $AGENTRY_CONNECT; none: embedded)");
  app.add_flag("--json", invocation.global.json, "Print the operation's JSON result as is");
  std::string store;
  auto* store_option = app.add_option("--store", store,
                                      "Where state lives: sqlite (the file under $AGENTRY_HOME, the default) or a "
                                      "PostgreSQL URI shared by several daemons (default: $AGENTRY_STORE)");

  ServeOptions serve;
  auto* serve_cmd = app.add_subcommand("serve", "Run the local control plane (HTTP API, WebSocket JSON-RPC, dashboard)");
  serve_cmd->add_option("--listen", serve.listen, "WebSocket URL to listen on; HTTP is served on the same port")
      ->envname("AGENTRY_LISTEN")
      ->capture_default_str();
  auto* socket_option = serve_cmd->add_option(
      "--socket", serve.socket,
      "Unix socket to listen on too, for agents without a network; none: no socket (default: $AGENTRY_SOCKET, else "
      "$AGENTRY_HOME/socket/agentry.sock)");
  auto* name_option = serve_cmd->add_option(
      "--name", serve.name, "This daemon's name among the members of its store (default: $AGENTRY_DAEMON_NAME, else "
                            "the host name)");
  auto* advertise_option = serve_cmd->add_option(
      "--advertise", serve.advertise,
      "The URL other members and clients reach this daemon at, e.g. http://10.0.0.7:4773 (default: "
      "$AGENTRY_ADVERTISE_URL, else the listen URL)");

  add_run_commands(app, invocation);
  add_query_commands(app, invocation);
  add_task_commands(app, invocation);
  add_queue_commands(app, invocation);
  add_schedule_commands(app, invocation);
  add_approval_command(app, invocation);
  add_admin_commands(app, invocation);
  add_trust_command(app, invocation);
  add_config_command(app, invocation);
  add_store_commands(app, invocation);
  add_import_commands(app, invocation);
  add_metadata_commands(app, invocation);
  add_dependency_commands(app, invocation);
  add_info_commands(app, invocation);
  add_workspace_commands(app, invocation);
  add_attachment_commands(app, invocation);
  add_operations_commands(app, invocation);
  add_mcp_command(app, invocation);

  std::vector<const char*> argv{"agentry"};
  for (const auto& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e, out, err);
    return code == 0 ? exit_code::success : exit_code::config_error;
  }
  // Every setting, once, before anything runs: a bad value stops here, named.
  std::vector<std::pair<std::string, std::string>> flags;
  const bool listen_given = std::any_of(args.begin(), args.end(), [](const std::string& a) {
    return a.rfind("--listen", 0) == 0;
  });
  if (serve_cmd->parsed() && listen_given) flags.emplace_back("AGENTRY_LISTEN", serve.listen);
  if (socket_option->count()) flags.emplace_back("AGENTRY_SOCKET", serve.socket);
  if (name_option->count()) flags.emplace_back("AGENTRY_DAEMON_NAME", serve.name);
  if (advertise_option->count()) flags.emplace_back("AGENTRY_ADVERTISE_URL", serve.advertise);
  if (connect->count()) flags.emplace_back("AGENTRY_CONNECT", invocation.global.connect);
  if (store_option->count()) flags.emplace_back("AGENTRY_STORE", store);
  auto settings = core::parse_settings(
      [&env](std::string_view name) -> std::optional<std::string> {
        auto it = env.vars.find(std::string(name));
        return it == env.vars.end() ? std::nullopt : std::optional<std::string>(it->second);
      },
      flags);
  if (!settings) {
    err << (serve_cmd->parsed() ? "agentry serve: " : "agentry: ") << settings.error().message << "\n";
    return exit_code::config_error;
  }
  invocation.global.settings = std::move(*settings);
  if (serve_cmd->parsed()) {
    if (connect->count()) {
      err << "agentry serve: --connect is for client commands; serve is the daemon (use --listen)\n";
      return exit_code::config_error;
    }
    return run_serve(serve, invocation.global.settings);
  }
  if (!invocation.action) return exit_code::success;
  // Client commands log only what needs attention, unless asked for more.
  if (!env.has("AGENTRY_LOG_LEVEL")) core::set_log_level(core::LogLevel::warn);
  else core::set_log_level(invocation.global.settings.log_level);
  CommandContext context(invocation.global, std::move(env), out, err, std::move(factory));
  return invocation.action(context);
}

}  // namespace agentry::cli

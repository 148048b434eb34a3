// The grammar of the commands about the store itself (command_grammar.hpp): `store
// migrate`, `store copy` and `import agent-runner`. What they do is in
// commands/store_commands.cpp and commands/import_commands.cpp.

#include "cli/command_grammar.hpp"

#include <memory>

namespace agentry::cli {

void add_store_commands(CLI::App& app, Invocation& inv) {
  auto* store = app.add_subcommand(
      "store", "Look after the store itself: apply its schema migrations, copy a SQLite home into PostgreSQL");
  store->require_subcommand(1);

  auto* migrate = store->add_subcommand(
      "migrate",
      "Apply the schema migrations of the store (--store / AGENTRY_STORE, else the SQLite file of AGENTRY_HOME) "
      "and say which version it was at; a daemon's start applies them too");
  on_parsed(migrate, inv, [](CommandContext& ctx) { return store_migrate_command(ctx); });

  auto o = std::make_shared<StoreCopyOptions>();
  auto* copy = store->add_subcommand(
      "copy",
      "Copy the SQLite store of AGENTRY_HOME into an empty PostgreSQL database (migrated first), in one "
      "transaction, and compare row counts; attachment blobs stay where they are: name them with AGENTRY_BLOB_DIR (docs/scale-out.md)");
  copy->add_option("--to", o->to, "The PostgreSQL database: postgresql://user@host:port/database")->required();
  copy->add_flag("--progress", o->progress, "Show progress on stderr even when it is not a terminal");
  on_parsed(copy, inv, [o](CommandContext& ctx) { return store_copy_command(ctx, *o); });
}

void add_import_commands(CLI::App& app, Invocation& inv) {
  auto* import = app.add_subcommand("import", "Bring another daemon's runs into the store (embedded only, no daemon serving it)");
  import->require_subcommand(1);
  auto o = std::make_shared<ImportAgentRunnerOptions>();
  auto* agent_runner = import->add_subcommand(
      "agent-runner",
      "Import agent-runner's runs (manifests of schemaVersion 25 under <state dir>/runs/<repo>/<run id>/): "
      "tasks, sessions, attempts as timeline events, audit, attachments, schedules, dependencies, queued "
      "messages. Runs that were running come in as error; a run imported before is skipped; an existing run "
      "is never overwritten. Exit 0 when every run was imported or skipped, 3 when some were refused, 4 on a "
      "store failure (docs/import.md)");
  agent_runner->add_option("state-dir", o->state_dir,
                           "agent-runner's state directory (AGENT_RUNNER_STATE_DIR, by default "
                           "~/.local/state/agent-runner)")
      ->required();
  agent_runner->add_flag("--dry-run", o->dry_run, "Read, map and check every run; write nothing");
  on_parsed(agent_runner, inv, [o](CommandContext& ctx) { return import_agent_runner_command(ctx, *o); });
}

}  // namespace agentry::cli

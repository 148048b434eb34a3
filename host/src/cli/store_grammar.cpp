// The grammar of the commands about the store itself (command_grammar.hpp): `store
// migrate` and `store copy`. What they do is in commands/store_commands.cpp.

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

}  // namespace agentry::cli

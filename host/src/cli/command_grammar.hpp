#pragma once
// What the files of the command-line grammar (CLI11) share. The grammar is split by
// what the commands are for:
//   app.cpp                  the top level: global options, `serve`, the commands about
//                            agentry and its projects (backends, definitions, config,
//                            trust), parsing and dispatch
//   run_grammar.cpp          starting and steering runs: run, init, ready, resume,
//                            reconfigure, abort, task, queue, schedule, approve, deps
//   run_records_grammar.cpp  reading runs and keeping their records: list, show,
//                            status, brief, ask, logs, audit, archive ... delete, name,
//                            note, pin, group, files, diff, attachment
//   store_grammar.cpp        the store itself: store migrate, store copy; import
//                            agent-runner (another daemon's runs into the store)
//   operations_grammar.cpp   agentry on this machine: service install|uninstall|status, doctor
// They are the only translation units that compile CLI11 (header-only, and slow to
// compile), and the only ones to include this header. What the commands do is in
// commands/*.cpp.

#include "cli/command_context.hpp"
#include "cli/commands/commands.hpp"

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

namespace agentry::cli {

using Action = std::function<int(CommandContext&)>;

/// What the parsed subcommand will run; set by its final callback.
struct Invocation {
  GlobalOptions global;
  Action action;
};

/// Makes `command` select `action` when it is the one parsed. `before` runs first, once
/// the options are parsed (to record which were given).
inline void on_parsed(CLI::App* command, Invocation& invocation, Action action, std::function<void()> before = {}) {
  command->final_callback([&invocation, action = std::move(action), before = std::move(before)] {
    if (before) before();
    invocation.action = action;
  });
}

inline CLI::Option* add_run_id(CLI::App* command, std::string& run_id) {
  return command->add_option("run", run_id, "Run id")->required();
}

// Each adds its commands to `app`. run_cli() calls them in the order `agentry --help`
// lists the commands in.

// run_grammar.cpp
void add_run_commands(CLI::App& app, Invocation& inv);
void add_task_commands(CLI::App& app, Invocation& inv);
void add_queue_commands(CLI::App& app, Invocation& inv);
void add_schedule_commands(CLI::App& app, Invocation& inv);
void add_approval_command(CLI::App& app, Invocation& inv);
void add_dependency_commands(CLI::App& app, Invocation& inv);

// run_records_grammar.cpp
void add_query_commands(CLI::App& app, Invocation& inv);
void add_admin_commands(CLI::App& app, Invocation& inv);
void add_metadata_commands(CLI::App& app, Invocation& inv);
void add_workspace_commands(CLI::App& app, Invocation& inv);
void add_attachment_commands(CLI::App& app, Invocation& inv);

// store_grammar.cpp
void add_store_commands(CLI::App& app, Invocation& inv);
void add_import_commands(CLI::App& app, Invocation& inv);

// operations_grammar.cpp
void add_operations_commands(CLI::App& app, Invocation& inv);

}  // namespace agentry::cli

#pragma once
// The client commands: what each does once its arguments are parsed. The grammar (CLI11
// subcommands, options, help) is in app.cpp and the *_grammar.cpp files
// (cli/command_grammar.hpp), the only CLI11 translation units; these files hold the
// behaviour, grouped by topic. Every command calls API operations by
// name through the context's Client, so embedded and connected mode behave the same.

#include "cli/command_context.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace agentry::cli {

// --- commands/run_commands.cpp: run, init, ready, resume, reconfigure, abort ---

/// A message given inline (-m) or read from a file (--message-file, "-" for stdin);
/// the grammar lets at most one of them through.
struct MessageInput {
  std::string text;
  bool text_given = false;  // -m "" is a message
  std::string file;         // --message-file; relative to the current directory
  bool given() const { return text_given || !file.empty(); }
};

/// The message `input` names, read now; nullopt when none was given. A file that
/// cannot be read is INVALID_REQUEST (exit 3).
core::Result<std::optional<std::string>> read_message(const MessageInput& input, const Environment& env);

struct StartOptions {
  /// `init --run-id`: re-initialize this initialized run from its definitions as they are
  /// now (runs.init with runId); an empty agent or assignment then means the run's own.
  std::string run_id;
  std::string agent;
  std::string assignment;
  MessageInput message;
  std::vector<std::string> vars;  // name=value
  std::string cwd;
  std::string group;
  bool group_given = false;
  std::string parent;
  bool parent_given = false;  // --parent "" means none
  std::string name;
  std::string model;
  std::string effort;
  std::string launcher;
  std::string environment;
  /// Another backend than the agent's; with no agent, the ad-hoc agent's.
  std::string backend;
  std::optional<bool> unrestricted;  // --unrestricted / --restricted
  int timeout_sec = -1;  // -1: not given
  int max_retries = -1;
  std::vector<std::string> add_tasks;  // --add-task titles, added before the run starts
  std::vector<std::string> after;      // --after: <runId>, run:<runId> or group:<groupId>
  std::vector<std::string> notify_webhooks;  // --notify-webhook: run-level notification targets
  std::string notify_secret_env;             // --notify-secret-env: signs those webhooks
  std::vector<std::string> labels;           // --label: labels the daemon that runs it needs
  bool detach = false;
  bool no_notify_parent = false;  // --no-notify-parent-on-complete
  bool no_inherit_group = false;  // --no-inherit-run-group
};

struct ResumeOptions {
  std::string run_id;
  MessageInput message;
  bool detach = false;
};

struct ReconfigureOptions {
  std::string run_id;
  std::vector<std::string> vars;        // name=value
  std::vector<std::string> unset_vars;  // names: back to env/parent/default
  MessageInput message;
};

/// `run` (start = true: runs.start, then follow) or `init` (runs.init). With
/// --add-task: runs.init, tasks.add for each, then (run) runs.resume, so the first
/// session starts with the tasks in place.
int start_command(CommandContext& ctx, const StartOptions& options, bool start);
int resume_command(CommandContext& ctx, const ResumeOptions& options);
struct ScheduleOptions;
/// runs.ready; with a schedule option, promotes and schedules in one write.
int ready_command(CommandContext& ctx, const ScheduleOptions& options);
int reconfigure_command(CommandContext& ctx, const ReconfigureOptions& options);
int abort_command(CommandContext& ctx, const std::string& run_id, const std::string& reason);

// --- commands/dependency_commands.cpp: deps list|add|remove|clear, --after ---

struct DependencyOptions {
  std::string run_id;
  std::vector<std::string> targets;  // <runId>, run:<runId> or group:<groupId>
};

/// `text` as the API's dependency: { type: "run", runId } or { type: "group", groupId }.
core::Result<boost::json::object> dependency_param(const std::string& text);
/// "run:<id>" or "group:<id>" of an API dependency object.
std::string dependency_name(const boost::json::value& dependency);
/// The unmet dependencies of a RunDetail, e.g. "run:abc (running), group:g (1 of 2
/// succeeded)"; empty when none is unmet.
std::string describe_waiting(const boost::json::value& run);
int deps_list_command(CommandContext& ctx, const DependencyOptions& options);
int deps_add_command(CommandContext& ctx, const DependencyOptions& options);
int deps_remove_command(CommandContext& ctx, const DependencyOptions& options);
int deps_clear_command(CommandContext& ctx, const DependencyOptions& options);

// --- commands/query_commands.cpp: list, show, status, brief, logs, audit ---

struct ListOptions {
  std::string cwd;
  std::string repo;
  std::string group;
  std::string cursor;
  bool global = false;
  bool all = false;
  int limit = 0;  // 0: the daemon's default
};

struct HistoryOptions {
  std::string run_id;
  bool follow = false;
  std::int64_t after = 0;
  std::int64_t limit = 0;  // 0: everything
};

int list_command(CommandContext& ctx, const ListOptions& options);
int show_command(CommandContext& ctx, const std::string& run_id);
/// One line about the run; exits with the code its status means (as `run` would).
int status_command(CommandContext& ctx, const std::string& run_id);
/// The prompt the run's first session receives (runs.brief), verbatim.
int brief_command(CommandContext& ctx, const std::string& run_id);
/// A question about the run's state, answered by its backend without a turn (runs.ask).
int ask_command(CommandContext& ctx, const std::string& run_id, const std::string& question, int timeout_sec);
int logs_command(CommandContext& ctx, const HistoryOptions& options);
int audit_command(CommandContext& ctx, const HistoryOptions& options);

// --- commands/task_commands.cpp: task list|show|set|append-notes|add|delete ---

struct TaskOptions {
  std::string run_id;  // --run; default $AGENTRY_RUN_ID
  std::string task_id;
  std::string status;
  std::string notes;
  bool notes_given = false;
  std::string title;
  bool title_given = false;
  std::string body;
  bool body_given = false;
  std::string text;  // append-notes
};

int task_list_command(CommandContext& ctx, const TaskOptions& options);
int task_show_command(CommandContext& ctx, const TaskOptions& options);
int task_set_command(CommandContext& ctx, const TaskOptions& options);
int task_append_notes_command(CommandContext& ctx, const TaskOptions& options);
int task_add_command(CommandContext& ctx, const TaskOptions& options);
int task_delete_command(CommandContext& ctx, const TaskOptions& options);

// --- commands/queue_commands.cpp: queue add|list|remove ---

struct QueueOptions {
  std::string run_id;
  std::string text;        // add
  std::string message_id;  // remove
};

int queue_add_command(CommandContext& ctx, const QueueOptions& options);
int queue_list_command(CommandContext& ctx, const QueueOptions& options);
int queue_remove_command(CommandContext& ctx, const QueueOptions& options);

// --- commands/schedule_commands.cpp: schedule set|clear|enable|disable ---

struct ScheduleOptions {
  std::string run_id;
  std::string at;
  std::string delay;
  std::string cron;
  std::string timezone;
  std::string mode;
  bool continue_on_failure = false;
};

/// The flat schedule params the options make (runs.setSchedule, runs.ready); empty
/// when none is given.
boost::json::object schedule_params(const ScheduleOptions& options);
/// runs.setSchedule with the flat body the options make.
int schedule_set_command(CommandContext& ctx, const ScheduleOptions& options);
/// `name` is "clear", "enable" or "disable".
int schedule_change_command(CommandContext& ctx, const std::string& name, const std::string& run_id);
/// One line about a run's schedule (RunSummary.schedule and scheduleState), for humans.
std::string describe_schedule(const boost::json::value& run);

// --- commands/approval_commands.cpp: approve ---

/// Answers an approval the run's agent waits on (`show` lists them).
int approve_command(CommandContext& ctx, const std::string& run_id, const std::string& approval_id, bool deny);

// --- commands/config_command.cpp: config ---

/// The effective settings (core/settings.hpp): name, value, where it came from, meaning.
int config_command(CommandContext& ctx);

// --- commands/store_commands.cpp: store migrate, store copy ---

struct StoreCopyOptions {
  std::string to;         // --to: the PostgreSQL URI to copy into
  bool progress = false;  // --progress: show it on stderr even when stderr is not a terminal
};

/// Applies the schema migrations of the configured store (AGENTRY_STORE / --store, else
/// the SQLite file of AGENTRY_HOME) and says which version it found and left. No daemon.
int store_migrate_command(CommandContext& ctx);
/// Copies the SQLite store of AGENTRY_HOME into the empty PostgreSQL database at `--to`
/// (store_copy/store_copy.hpp) and prints each table's row counts. No daemon.
int store_copy_command(CommandContext& ctx, const StoreCopyOptions& options);

// --- commands/import_commands.cpp: import agent-runner ---

struct ImportAgentRunnerOptions {
  std::string state_dir;  // agent-runner's state directory (holding runs/), relative to the current directory
  bool dry_run = false;   // --dry-run: read, map and check everything, write nothing
};

/// Imports the runs of agent-runner's state directory into the store
/// (store_import/agent_runner/state_dir_import.hpp). Embedded only, with no daemon serving
/// the store. Exit 0 when every run was imported or skipped, 3 when some were refused, 4
/// on a store failure.
int import_agent_runner_command(CommandContext& ctx, const ImportAgentRunnerOptions& options);

// --- commands/trust_commands.cpp: trust ---

struct TrustOptions {
  std::string dir;  // relative to the current directory; empty: the current directory
  bool revoke = false;
  bool status = false;
  bool list = false;
};

/// projects.trust (or .revokeTrust, .trustStatus, .listTrusted) for the project at or above `dir`.
int trust_command(CommandContext& ctx, const TrustOptions& options);

// --- commands/admin_commands.cpp: archive, unarchive, reset, delete ---

/// `name` is one of "archive", "unarchive", "reset", "delete".
int admin_command(CommandContext& ctx, const std::string& name, const std::string& run_id);

// --- commands/metadata_commands.cpp: name, note, pin, unpin, group ---

/// runs.setName; nullopt clears the name.
int name_command(CommandContext& ctx, const std::string& run_id, const std::optional<std::string>& name);
/// runs.setNote; nullopt clears the note.
int note_command(CommandContext& ctx, const std::string& run_id, const std::optional<std::string>& note);
/// runs.setPinned.
int pin_command(CommandContext& ctx, const std::string& run_id, bool pinned);
/// runs.setGroup, or runs.clearGroup for nullopt (back to the run's own group).
int group_command(CommandContext& ctx, const std::string& run_id, const std::optional<std::string>& group);

// --- commands/info_commands.cpp: backends, definitions ---

struct DefinitionOptions {
  std::string kind;  // agents, assignments, launchers, environments, tasks (or singular); empty: all
  std::string name;
  std::string cwd;
};

int backends_command(CommandContext& ctx);

// --- commands/usage_command.cpp ---

struct UsageOptions {
  std::string by;  // agent (default), day, group, run
  std::string since;  // YYYY-MM-DD, UTC
  std::string until;
};

/// `usage`: tokens and cost per agent, day, group, run or session (usage.summary).
int usage_command(CommandContext& ctx, const UsageOptions& options);

// --- commands/mcp_command.cpp ---

/// `agentry mcp`: the MCP server on stdio (docs/mcp.md), reading messages from `in`
/// until it closes. Exit 0, or the client's error when it cannot be opened.
int mcp_command(CommandContext& ctx, std::istream& in);
/// `daemons`: the daemons serving this store, with their state and load.
int daemons_command(CommandContext& ctx);
int definitions_command(CommandContext& ctx, const DefinitionOptions& options);

// --- commands/workspace_commands.cpp: files, diff ---

struct FilesOptions {
  std::string run_id;
  std::string path;    // a directory to list, or with --show a file to print
  std::string search;  // --search: paths matching this text
  int limit = 0;
  bool show = false;
  std::string colour = "auto";
};

struct DiffOptions {
  std::string run_id;
  std::string mode = "run";  // run, working-tree, branch
  std::string base;
  std::string head;
  bool direct = false;
  bool stat = false;
  std::string colour = "auto";  // auto: when standard output is a terminal and NO_COLOR is unset
};

/// Colour for `when` ("auto", "always", "never").
bool use_colour(CommandContext& ctx, const std::string& when);
int files_command(CommandContext& ctx, const FilesOptions& options);
int diff_command(CommandContext& ctx, const DiffOptions& options);

// --- commands/attachment_commands.cpp: attachment add, list, get, rm ---

struct AttachmentOptions {
  std::string run_id;
  std::string file;           // add: the file to upload
  std::string name;           // add --name: stored under this name (default: the file's)
  std::string scope = "group";  // list --scope: run or group
  std::string attachment_id;  // get, rm
  std::string output;         // get -o: a file or a directory (default: the name, here)
  bool force = false;         // get --force: overwrite
};

int attachment_add_command(CommandContext& ctx, const AttachmentOptions& options);
int attachment_list_command(CommandContext& ctx, const AttachmentOptions& options);
int attachment_get_command(CommandContext& ctx, const AttachmentOptions& options);
int attachment_rm_command(CommandContext& ctx, const AttachmentOptions& options);

// --- commands/service_commands.cpp: service install|uninstall|status ---

struct ServiceOptions {
  bool print = false;  // --print: only print the unit, write and enable nothing
  std::string listen;  // --listen: serve's address; default: the effective AGENTRY_LISTEN
};

/// Writes the systemd user unit (cli/service_unit.hpp) and its environment file, then
/// `systemctl --user daemon-reload` and `enable --now`; without systemctl or a reachable
/// user manager, prints the unit and the commands to run and exits 0.
int service_install_command(CommandContext& ctx, const ServiceOptions& options);
/// `systemctl --user disable --now`, removes the unit and its environment file, daemon-reload.
int service_uninstall_command(CommandContext& ctx);
/// Installed (the unit file), enabled and active (systemctl's words; null without systemctl).
int service_status_command(CommandContext& ctx);

// --- commands/doctor_command.cpp: doctor ---

/// Checks what runs need on this machine (cli/doctor_checks.hpp) and says how to fix each
/// problem. Exit 0 when no check failed (warnings allowed), exit_code::checks_failed else.
int doctor_command(CommandContext& ctx);

/// `environments status`, `environments cleanup [--all]` (container_commands.cpp).
int environments_status_command(CommandContext& ctx);
int environments_cleanup_command(CommandContext& ctx, bool all);
/// `container-exec ...`: the relay into a container (environments/exec_relay.hpp); not a
/// user's command, so it bypasses the parser (agent arguments follow it verbatim).
int container_exec_command(const std::vector<std::string>& args);

}  // namespace agentry::cli

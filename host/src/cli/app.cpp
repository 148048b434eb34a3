// The command-line grammar: every subcommand, its options and help, in the one
// translation unit that compiles CLI11 (header-only, and slow to compile). What the
// commands do is in commands/*.cpp.

#include "cli/app.hpp"

#include "cli/commands/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/serve_command.hpp"
#include "core/log.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>

namespace agentry::cli {
namespace {

using Action = std::function<int(CommandContext&)>;

/// What the parsed subcommand will run; set by its final callback.
struct Invocation {
  GlobalOptions global;
  Action action;
};

/// Makes `command` select `action` when it is the one parsed. `before` runs first, once
/// the options are parsed (to record which were given).
void on_parsed(CLI::App* command, Invocation& invocation, Action action, std::function<void()> before = {}) {
  command->final_callback([&invocation, action = std::move(action), before = std::move(before)] {
    if (before) before();
    invocation.action = action;
  });
}

CLI::Option* add_run_id(CLI::App* command, std::string& run_id) {
  return command->add_option("run", run_id, "Run id")->required();
}

/// -m and --message-file, which exclude each other; `record` notes whether -m was given
/// (-m "" is a message).
std::function<void()> add_message_options(CLI::App* cmd, MessageInput& m, const std::string& help) {
  auto* text = cmd->add_option("--message,-m", m.text, help);
  auto* file = cmd->add_option("--message-file", m.file, "Read the message from this file (- for standard input)")
                   ->type_name("PATH");
  text->excludes(file);
  file->excludes(text);
  return [&m, text] { m.text_given = text->count() > 0; };
}


void add_start_options(CLI::App* cmd, StartOptions& o, std::function<void()>& record) {
  cmd->add_option("agent", o.agent, "Agent: a name from a project's .agentry/ or the config dir, or a path")->required();
  cmd->add_option("--assignment,-a", o.assignment, "Assignment: a name or a path");
  auto record_message = add_message_options(cmd, o.message, "The message (required without an assignment)");
  cmd->add_option("--var", o.vars, "An assignment variable, name=value (repeatable)")->type_name("NAME=VALUE");
  // One title per --add-task: a title is one argument, and never takes the next one.
  cmd->add_option("--add-task", o.add_tasks, "Add a task with this title before the run starts (repeatable)")
      ->type_name("TITLE")
      ->allow_extra_args(false);
  cmd->add_option("--cwd", o.cwd, "Working directory of the run (default: the current directory)");
  auto* group = cmd->add_option("--group,--group-id", o.group,
                                "Run group id (default: $AGENTRY_RUN_GROUP_ID, else the run's own id)");
  auto* parent = cmd->add_option("--parent-run,--parent", o.parent,
                                 "Parent run id (default: $AGENTRY_RUN_ID inside a run, else $AGENTRY_PARENT_RUN_ID); "
                                 "\"\" for none");
  cmd->add_option("--name", o.name, "A display name");
  cmd->add_option("--model", o.model, "Override the agent's model");
  cmd->add_option("--effort", o.effort, "Override the agent's reasoning effort");
  cmd->add_option("--launcher", o.launcher, "Wrap the agent's command with this launcher");
  cmd->add_option("--timeout", o.timeout_sec, "Time limit of one session, in seconds")->check(CLI::Range(0, 7 * 24 * 3600));
  cmd->add_option("--max-retries", o.max_retries, "Retries of a failed attempt (0-20)")->check(CLI::Range(0, 20));
  cmd->add_option("--after", o.after,
                  "Start only after this succeeds: a run id (run:<id>) or group:<id>, every non-archived run of "
                  "the group (repeatable). `run` whose dependencies are not met leaves the run ready, and the "
                  "daemon starts it when they are")
      ->type_name("RUN|group:ID")
      ->allow_extra_args(false);
  cmd->add_flag("--no-notify-parent-on-complete", o.no_notify_parent,
                "With a parent: do not send it a message when this run's session ends (`run --detach` and `init` "
                "do by default)");
  cmd->add_flag("--no-inherit-run-group", o.no_inherit_group,
                "With a parent: make a group of its own instead of joining the parent's (and ignore "
                "$AGENTRY_RUN_GROUP_ID)");
  cmd->add_option("--notify-webhook", o.notify_webhooks,
                  "POST run.finished and run.needs_user events of this run to this http(s) URL (repeatable); "
                  "added to the agent's and assignment's notify targets")
      ->type_name("URL")
      ->allow_extra_args(false);
  cmd->add_option("--notify-secret-env", o.notify_secret_env,
                  "Sign --notify-webhook requests (X-Agentry-Signature, HMAC-SHA256) with the secret in this "
                  "environment variable of the daemon")
      ->type_name("NAME");
  record = [&o, record_message, group, parent] {
    record_message();
    o.group_given = group->count() > 0;
    o.parent_given = parent->count() > 0;
  };
}

/// --at | --delay | --cron [--timezone --mode --continue-on-failure], for `schedule set`
/// and `ready` (promote and schedule in one write). The daemon checks that exactly one
/// of the three is there for `schedule set`.
void add_schedule_options(CLI::App* cmd, ScheduleOptions& o) {
  auto* at = cmd->add_option("--at", o.at, "Once, at this time: ISO 8601 with a zone, e.g. 2030-01-02T09:00:00Z")
                 ->type_name("TIME");
  auto* delay = cmd->add_option("--delay", o.delay, "Once, after this long: 30s, 30m, 2h, 1h30m, 7d")
                    ->type_name("DURATION");
  auto* cron = cmd->add_option("--cron", o.cron,
                               "Recurring: minute hour day-of-month month day-of-week, e.g. \"0 9 * * MON-FRI\", "
                               "or @hourly, @daily, @weekly, @monthly, @yearly")
                   ->type_name("EXPR");
  at->excludes(delay)->excludes(cron);
  delay->excludes(at)->excludes(cron);
  cron->excludes(at)->excludes(delay);
  cmd->add_option("--timezone,--tz", o.timezone, "IANA time zone of --cron (default UTC), e.g. "
                                                             "Europe/Berlin")
                 ->needs(cron);
  cmd->add_option("--mode", o.mode,
                               "What each --cron occurrence starts: reuse (a new session of this run, the "
                               "default), reset (this run reset, then started), clone (a fresh copy of this run)")
                   ->check(CLI::IsMember({"reuse", "reset", "clone"}))
                   ->needs(cron);
  cmd->add_flag("--continue-on-failure", o.continue_on_failure,
                             "Keep firing after a scheduled run fails (default: the next occurrence is skipped)")
                   ->needs(cron);
}

void add_run_commands(CLI::App& app, Invocation& inv) {
  for (bool start : {true, false}) {
    auto o = std::make_shared<StartOptions>();
    auto* cmd = start ? app.add_subcommand("run", "Start a run and follow it to the end; exits with the run's code")
                      : app.add_subcommand("init", "Create a run without starting it (status initialized)");
    std::function<void()> record;
    add_start_options(cmd, *o, record);
    if (start) cmd->add_flag("--detach,-d", o->detach, "Start it and return at once (connected mode only)");
    on_parsed(cmd, inv, [o, start](CommandContext& ctx) { return start_command(ctx, *o, start); }, record);
  }
  {
    auto o = std::make_shared<ScheduleOptions>();
    auto* cmd = app.add_subcommand("ready", "Mark an initialized run ready; with --at, --delay or --cron, also set "
                                            "its schedule in the same change (connected mode, or embedded)");
    add_run_id(cmd, o->run_id);
    add_schedule_options(cmd, *o);
    on_parsed(cmd, inv, [o](CommandContext& ctx) { return ready_command(ctx, *o); });
  }
  {
    auto o = std::make_shared<ResumeOptions>();
    auto* cmd = app.add_subcommand("resume", "Start a run's next session (or its first) and follow it");
    add_run_id(cmd, o->run_id);
    auto record = add_message_options(cmd, o->message, "The follow-up message for the new session");
    cmd->add_flag("--detach,-d", o->detach, "Resume it and return at once (connected mode only)");
    on_parsed(cmd, inv, [o](CommandContext& ctx) { return resume_command(ctx, *o); }, record);
  }
  {
    auto o = std::make_shared<ReconfigureOptions>();
    auto* cmd = app.add_subcommand("reconfigure", "Change an initialized run's vars or message before it starts");
    add_run_id(cmd, o->run_id);
    cmd->add_option("--var", o->vars, "Set an assignment variable, name=value (repeatable)")->type_name("NAME=VALUE");
    cmd->add_option("--unset-var", o->unset_vars,
                    "Drop a variable given before: back to its env, parent or default value (repeatable)")
        ->type_name("NAME");
    auto record = add_message_options(cmd, o->message, "Replace the message (\"\" for none)");
    on_parsed(cmd, inv, [o](CommandContext& ctx) { return reconfigure_command(ctx, *o); }, record);
  }
  {
    auto id = std::make_shared<std::string>();
    auto reason = std::make_shared<std::string>();
    auto* cmd = app.add_subcommand("abort", "Abort a running run");
    add_run_id(cmd, *id);
    cmd->add_option("--reason", *reason, "Why (recorded in the audit trail)");
    on_parsed(cmd, inv, [id, reason](CommandContext& ctx) { return abort_command(ctx, *id, *reason); });
  }
}

void add_query_commands(CLI::App& app, Invocation& inv) {
  {
    auto o = std::make_shared<ListOptions>();
    auto* cmd = app.add_subcommand("list", "List runs (default: those in the current directory), newest first");
    cmd->add_option("--cwd", o->cwd, "Runs whose working directory is this one");
    cmd->add_flag("--global,-g", o->global, "Every run");
    cmd->add_option("--group", o->group, "Runs of this group");
    cmd->add_option("--repo", o->repo, "Runs anywhere inside this git work tree");
    cmd->add_flag("--all", o->all, "Include archived runs");
    cmd->add_option("--limit,-n", o->limit, "At most this many runs (1-500, default 100)")->check(CLI::Range(1, 500));
    cmd->add_option("--cursor", o->cursor, "Continue after a previous page (its nextCursor)");
    on_parsed(cmd, inv, [o](CommandContext& ctx) { return list_command(ctx, *o); });
  }
  {
    auto id = std::make_shared<std::string>();
    auto* cmd = app.add_subcommand("show", "Show a run: status, tasks, sessions");
    add_run_id(cmd, *id);
    on_parsed(cmd, inv, [id](CommandContext& ctx) { return show_command(ctx, *id); });
  }
  {
    auto id = std::make_shared<std::string>();
    auto* cmd = app.add_subcommand("status", "One line about a run; exits with its code (0 while it has not ended)");
    add_run_id(cmd, *id);
    on_parsed(cmd, inv, [id](CommandContext& ctx) { return status_command(ctx, *id); });
  }
  {
    auto id = std::make_shared<std::string>();
    auto* cmd = app.add_subcommand("brief", "Print the prompt a run's first session receives");
    add_run_id(cmd, *id);
    on_parsed(cmd, inv, [id](CommandContext& ctx) { return brief_command(ctx, *id); });
  }
  {
    auto id = std::make_shared<std::string>();
    auto question = std::make_shared<std::string>();
    auto timeout = std::make_shared<int>(60);
    auto* cmd = app.add_subcommand(
        "ask", "Ask a run's agent about its state without starting a turn (backends with the ask feature)");
    add_run_id(cmd, *id);
    cmd->add_option("question", *question, "The question")->required();
    cmd->add_option("--timeout", *timeout, "Seconds to wait for the answer (1-300, default 60)")
        ->check(CLI::Range(1, 300));
    on_parsed(cmd, inv, [id, question, timeout](CommandContext& ctx) {
      return ask_command(ctx, *id, *question, *timeout);
    });
  }
  for (bool logs : {true, false}) {
    auto o = std::make_shared<HistoryOptions>();
    auto* cmd = logs ? app.add_subcommand("logs", "Print a run's timeline; -f follows it live until the run ends")
                     : app.add_subcommand("audit", "Print a run's audit trail: who did what, when");
    add_run_id(cmd, o->run_id);
    if (logs) cmd->add_flag("--follow,-f", o->follow, "Keep printing until the run ends (exits with its code)");
    cmd->add_option("--after", o->after, "Start after this cursor")->check(CLI::NonNegativeNumber);
    cmd->add_option("--limit,-n", o->limit, "At most this many entries")->check(CLI::PositiveNumber);
    if (logs) on_parsed(cmd, inv, [o](CommandContext& ctx) { return logs_command(ctx, *o); });
    else on_parsed(cmd, inv, [o](CommandContext& ctx) { return audit_command(ctx, *o); });
  }
}

void add_task_commands(CLI::App& app, Invocation& inv) {
  auto* task = app.add_subcommand("task", "A run's tasks: list, show, set, append-notes, add, delete");
  task->require_subcommand(1);
  using Command = int (*)(CommandContext&, const TaskOptions&);
  auto sub = [&](const char* name, const char* help, Command command, bool with_task) {
    auto o = std::make_shared<TaskOptions>();
    auto* cmd = task->add_subcommand(name, help);
    if (with_task) cmd->add_option("task", o->task_id, "Task id")->required();
    cmd->add_option("--run,-r", o->run_id, "Run id (default: $AGENTRY_RUN_ID)");
    on_parsed(cmd, inv, [o, command](CommandContext& ctx) { return command(ctx, *o); });
    return std::pair{cmd, o};
  };
  sub("list", "List the run's tasks", task_list_command, false);
  sub("show", "Show one task", task_show_command, true);
  {
    auto [cmd, o] = sub("set", "Change a task's status, notes, title or body", task_set_command, true);
    cmd->add_option("--status,-s", o->status, "pending, in_progress, completed or blocked")
        ->check(CLI::IsMember({"pending", "in_progress", "completed", "blocked"}));
    auto* notes = cmd->add_option("--notes", o->notes, "Replace the notes");
    auto* title = cmd->add_option("--title", o->title, "New title (pending tasks only)");
    auto* body = cmd->add_option("--body", o->body, "New body (pending tasks only)");
    on_parsed(cmd, inv, [o = o](CommandContext& ctx) { return task_set_command(ctx, *o); },
              [o = o, notes, title, body] {
                o->notes_given = notes->count() > 0;
                o->title_given = title->count() > 0;
                o->body_given = body->count() > 0;
              });
  }
  {
    auto [cmd, o] = sub("append-notes", "Add a line to a task's notes", task_append_notes_command, true);
    cmd->add_option("text", o->text, "The line to add")->required();
  }
  {
    auto [cmd, o] = sub("add", "Add a task to the run", task_add_command, false);
    cmd->add_option("title", o->title, "Title")->required();
    cmd->add_option("--id", o->task_id, "Task id (default: generated)");
    cmd->add_option("--body", o->body, "Body");
  }
  sub("delete", "Delete a pending task", task_delete_command, true);
}

void add_queue_commands(CLI::App& app, Invocation& inv) {
  auto* queue = app.add_subcommand("queue", "Follow-up messages for a running run, sent together when its session ends");
  queue->require_subcommand(1);
  using Command = int (*)(CommandContext&, const QueueOptions&);
  auto sub = [&](const char* name, const char* help, Command command) {
    auto o = std::make_shared<QueueOptions>();
    auto* cmd = queue->add_subcommand(name, help);
    add_run_id(cmd, o->run_id);
    on_parsed(cmd, inv, [o, command](CommandContext& ctx) { return command(ctx, *o); });
    return std::pair{cmd, o};
  };
  {
    auto [cmd, o] = sub("add", "Queue a message (the run must be running)", queue_add_command);
    cmd->add_option("text", o->text, "The message")->required();
  }
  sub("list", "List the run's queued messages", queue_list_command);
  {
    auto [cmd, o] = sub("remove", "Remove a queued message before it is sent", queue_remove_command);
    cmd->add_option("message", o->message_id, "Queued message id (see queue list)")->required();
  }
}

void add_schedule_commands(CLI::App& app, Invocation& inv) {
  auto* schedule = app.add_subcommand(
      "schedule", "Start a run later (--at, --delay) or on a cron schedule; a daemon fires schedules (docs/cli.md)");
  schedule->require_subcommand(1);
  {
    auto o = std::make_shared<ScheduleOptions>();
    auto* cmd = schedule->add_subcommand(
        "set", "Set the run's schedule (replacing any): exactly one of --at, --delay, --cron. A due schedule starts "
               "the run like `resume` if it is ready (or has ended), and is skipped, with the reason in its audit, "
               "if it is archived, running, not ready or passive");
    add_run_id(cmd, o->run_id);
    add_schedule_options(cmd, *o);
    on_parsed(cmd, inv, [o](CommandContext& ctx) { return schedule_set_command(ctx, *o); });
  }
  for (auto [name, help] :
       {std::pair{"clear", "Remove the run's one-time schedule (a recurring one is disabled instead)"},
        std::pair{"enable", "Enable the run's schedule again (a recurring one resumes at its next occurrence)"},
        std::pair{"disable", "Disable the run's schedule, keeping it"}}) {
    auto id = std::make_shared<std::string>();
    auto* cmd = schedule->add_subcommand(name, help);
    add_run_id(cmd, *id);
    on_parsed(cmd, inv, [id, name = std::string(name)](CommandContext& ctx) {
      return schedule_change_command(ctx, name, *id);
    });
  }
}

void add_approval_command(CLI::App& app, Invocation& inv) {
  auto id = std::make_shared<std::string>();
  auto approval = std::make_shared<std::string>();
  auto deny = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("approve", "Answer a question the run's agent waits on (see `show`): approve, or --deny");
  add_run_id(cmd, *id);
  cmd->add_option("approval", *approval, "Approval id")->required();
  cmd->add_flag("--deny", *deny, "Refuse instead");
  on_parsed(cmd, inv, [id, approval, deny](CommandContext& ctx) { return approve_command(ctx, *id, *approval, *deny); });
}

void add_admin_commands(CLI::App& app, Invocation& inv) {
  for (auto [name, help] :
       {std::pair{"archive", "Archive a run that is not running (hidden from lists without --all)"},
        std::pair{"unarchive", "Bring an archived run back"},
        std::pair{"reset", "Return a run to its state before its first session (status initialized)"},
        std::pair{"delete", "Delete an archived run and everything recorded about it"}}) {
    auto id = std::make_shared<std::string>();
    auto* cmd = app.add_subcommand(name, help);
    add_run_id(cmd, *id);
    on_parsed(cmd, inv, [id, name = std::string(name)](CommandContext& ctx) { return admin_command(ctx, name, *id); });
  }
}

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

/// `name` and `note`: <run> <text> | <run> --clear.
void add_text_setter(CLI::App& app, Invocation& inv, const char* name, const char* help, const char* what,
                     int (*command)(CommandContext&, const std::string&, const std::optional<std::string>&)) {
  struct Args {
    std::string run_id;
    std::string text;
    bool clear = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(name, help);
  add_run_id(cmd, a->run_id);
  auto* text = cmd->add_option("text", a->text, std::string("The ") + what);
  auto* clear = cmd->add_flag("--clear", a->clear, std::string("Remove the ") + what);
  text->excludes(clear);
  clear->excludes(text);
  auto given = std::make_shared<bool>(false);
  on_parsed(
      cmd, inv,
      [a, given, name = std::string(name), what = std::string(what), command](CommandContext& ctx) {
        if (!a->clear && (!*given || a->text.empty()))
          return ctx.usage_error("give the " + what + " (not empty), or --clear to remove it: agentry " + name +
                                 " <run> <" + what + "> | --clear");
        return command(ctx, a->run_id, a->clear ? std::nullopt : std::optional<std::string>(a->text));
      },
      [given, text] { *given = text->count() > 0; });
}

void add_metadata_commands(CLI::App& app, Invocation& inv) {
  add_text_setter(app, inv, "name", "Set a run's display name, or --clear it", "name", name_command);
  add_text_setter(app, inv, "note", "Set a run's note, or --clear it", "note", note_command);
  for (bool pinned : {true, false}) {
    auto id = std::make_shared<std::string>();
    auto* cmd = pinned ? app.add_subcommand("pin", "Pin a run (the dashboard keeps it in view)")
                       : app.add_subcommand("unpin", "Unpin a run");
    add_run_id(cmd, *id);
    on_parsed(cmd, inv, [id, pinned](CommandContext& ctx) { return pin_command(ctx, *id, pinned); });
  }
  {
    struct Args {
      std::string run_id;
      std::string group;
      bool clear = false;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app.add_subcommand("group", "Move a run to another group, or --clear: back to its own");
    add_run_id(cmd, a->run_id);
    auto* group = cmd->add_option("group", a->group, "Group id: 1-128 letters, digits and _ . : / -");
    auto* clear = cmd->add_flag("--clear", a->clear, "Back to the run's own group (named after its id)");
    group->excludes(clear);
    clear->excludes(group);
    on_parsed(cmd, inv, [a](CommandContext& ctx) {
      if (!a->clear && a->group.empty())
        return ctx.usage_error("give a group id, or --clear to put the run back in its own group: "
                               "agentry group <run> <group> | --clear");
      return group_command(ctx, a->run_id, a->clear ? std::nullopt : std::optional<std::string>(a->group));
    });
  }
}

void add_dependency_commands(CLI::App& app, Invocation& inv) {
  auto* deps = app.add_subcommand(
      "deps", "What a run waits on before it starts: list, add, remove, clear (while initialized or ready)");
  deps->alias("dependencies");
  deps->require_subcommand(1);
  deps->footer("A dependency is a run id (or run:<id>), met when that run ends success, or group:<id>, met when "
               "every non-archived run of the group has. A ready run whose dependencies are all met is started by "
               "the daemon (agentry serve); starting one by hand before that is refused.");
  using Command = int (*)(CommandContext&, const DependencyOptions&);
  auto sub = [&](const char* name, const char* help, Command command) {
    auto o = std::make_shared<DependencyOptions>();
    auto* cmd = deps->add_subcommand(name, help);
    add_run_id(cmd, o->run_id);
    on_parsed(cmd, inv, [o, command](CommandContext& ctx) { return command(ctx, *o); });
    return std::pair{cmd, o};
  };
  sub("list", "Show what the run waits on, whether each is met, and the runs waiting on it", deps_list_command);
  {
    auto [cmd, o] = sub("add", "Make the run wait on runs or groups (self, duplicates and cycles are refused)",
                        deps_add_command);
    cmd->add_option("dependency", o->targets, "<runId>, run:<runId> or group:<groupId> (one or more)")->required();
  }
  {
    auto [cmd, o] = sub("remove", "Stop waiting on one run or group", deps_remove_command);
    cmd->add_option("dependency", o->targets, "<runId>, run:<runId> or group:<groupId>")->required();
  }
  sub("clear", "Remove every dependency of the run", deps_clear_command);
}

void add_info_commands(CLI::App& app, Invocation& inv) {
  auto* backends = app.add_subcommand("backends", "List the backends agentry can run agents on, and plugins that failed");
  on_parsed(backends, inv, [](CommandContext& ctx) { return backends_command(ctx); });
  auto o = std::make_shared<DefinitionOptions>();
  auto* cmd = app.add_subcommand("definitions", "List definitions, or show one: definitions [KIND [NAME]]");
  cmd->alias("defs");
  cmd->add_option("kind", o->kind, "agents, assignments, launchers or tasks (default: every kind)");
  cmd->add_option("name", o->name, "A definition's name or path: show it");
  cmd->add_option("--cwd", o->cwd, "Project directory whose .agentry/ is searched too (default: the current one)");
  on_parsed(cmd, inv, [o](CommandContext& ctx) { return definitions_command(ctx, *o); });
}

void add_workspace_commands(CLI::App& app, Invocation& inv) {
  {
    auto o = std::make_shared<FilesOptions>();
    auto* cmd = app.add_subcommand("files", "List a run's files (files RUN [DIR]), search them, or print one");
    add_run_id(cmd, o->run_id);
    cmd->add_option("path", o->path, "A directory relative to the run's cwd (with --show: a file)");
    cmd->add_option("--search,-s", o->search, "Paths containing this text (case-insensitive; skips node_modules and .git)");
    cmd->add_option("--limit", o->limit, "At most this many search results (default 50)")->check(CLI::Range(1, 1000));
    cmd->add_flag("--show", o->show, "Print the file PATH (UTF-8 text up to 1 MiB)");
    cmd->add_option("--color", o->colour, "auto, always or never")->check(CLI::IsMember({"auto", "always", "never"}));
    on_parsed(cmd, inv, [o](CommandContext& ctx) { return files_command(ctx, *o); });
  }
  auto o = std::make_shared<DiffOptions>();
  auto* cmd = app.add_subcommand("diff", "Show what a run changed (its baseline against the work tree), or another diff");
  add_run_id(cmd, o->run_id);
  cmd->add_option("--mode", o->mode, "run (default): the run's own changes; working-tree: HEAD against the work tree; "
                                     "branch: --base against --head")
      ->check(CLI::IsMember({"run", "working-tree", "branch"}));
  cmd->add_option("--base", o->base, "Branch mode: the ref to compare against");
  cmd->add_option("--head", o->head, "Branch mode: the ref to compare (default HEAD)");
  cmd->add_flag("--direct", o->direct, "Branch mode: base..head instead of through the merge base (base...head)");
  cmd->add_flag("--stat", o->stat, "Files with their added and deleted lines instead of the patch");
  cmd->add_option("--color", o->colour, "auto, always or never")->check(CLI::IsMember({"auto", "always", "never"}));
  on_parsed(cmd, inv, [o](CommandContext& ctx) { return diff_command(ctx, *o); });
}

void add_attachment_commands(CLI::App& app, Invocation& inv) {
  auto* group = app.add_subcommand("attachment", "Files handed to a run: add, list, get, rm");
  group->require_subcommand(1);
  auto sub = [&](const char* name, const char* help, int (*command)(CommandContext&, const AttachmentOptions&)) {
    auto o = std::make_shared<AttachmentOptions>();
    auto* cmd = group->add_subcommand(name, help);
    add_run_id(cmd, o->run_id);
    on_parsed(cmd, inv, [o, command](CommandContext& ctx) { return command(ctx, *o); });
    return std::pair{cmd, o};
  };
  {
    auto [cmd, o] = sub("add", "Upload a file (up to 25 MiB) as an attachment of the run", attachment_add_command);
    cmd->add_option("file", o->file, "The file to upload")->required();
    cmd->add_option("--name,-n", o->name, "Store it under this name (default: the file's name)");
  }
  {
    auto [cmd, o] = sub("list", "List the attachments of the run (default) or only its own", attachment_list_command);
    cmd->alias("ls");
    cmd->add_option("--scope", o->scope, "group (default: every run of the run's group) or run")
        ->check(CLI::IsMember({"run", "group"}));
  }
  {
    auto [cmd, o] = sub("get", "Download an attachment", attachment_get_command);
    cmd->add_option("attachment", o->attachment_id, "Attachment id")->required();
    cmd->add_option("--output,-o", o->output, "Write here (a file, or a directory for the attachment's name; "
                                              "default: its name in the current directory)");
    cmd->add_flag("--force,-f", o->force, "Overwrite an existing file");
  }
  {
    auto [cmd, o] = sub("rm", "Remove an attachment of the run", attachment_rm_command);
    cmd->alias("remove");
    cmd->add_option("attachment", o->attachment_id, "Attachment id")->required();
  }
}

}  // namespace

int run_app(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
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
                                 "Daemon WebSocket URL, e.g. ws://127.0.0.1:4773/ (default: $AGENTRY_CONNECT; "
                                 "none: embedded)");
  app.add_flag("--json", invocation.global.json, "Print the operation's JSON result as is");

  ServeOptions serve;
  auto* serve_cmd = app.add_subcommand("serve", "Run the local control plane (HTTP API, WebSocket JSON-RPC, dashboard)");
  serve_cmd->add_option("--listen", serve.listen, "WebSocket URL to listen on; HTTP is served on the same port")
      ->envname("AGENTRY_LISTEN")
      ->capture_default_str();

  add_run_commands(app, invocation);
  add_query_commands(app, invocation);
  add_task_commands(app, invocation);
  add_queue_commands(app, invocation);
  add_schedule_commands(app, invocation);
  add_approval_command(app, invocation);
  add_admin_commands(app, invocation);
  add_trust_command(app, invocation);
  add_config_command(app, invocation);
  add_metadata_commands(app, invocation);
  add_dependency_commands(app, invocation);
  add_info_commands(app, invocation);
  add_workspace_commands(app, invocation);
  add_attachment_commands(app, invocation);

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
  if (connect->count()) flags.emplace_back("AGENTRY_CONNECT", invocation.global.connect);
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

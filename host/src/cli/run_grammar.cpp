// The grammar of the commands that start and steer runs (command_grammar.hpp): run,
// init, ready, resume, reconfigure, abort, task, queue, schedule, approve, deps. What
// they do is in commands/run_commands.cpp and its neighbours.

#include "cli/command_grammar.hpp"

#include <memory>
#include <utility>

namespace agentry::cli {
namespace {

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

void add_start_options(CLI::App* cmd, StartOptions& o, std::function<void()>& record, bool start) {
  cmd->add_option("agent", o.agent,
                  "Agent: a name from a project's .agentry/ or the config dir, or a path; none with --backend: an "
                  "ad-hoc agent on that backend");
  if (!start) {
    cmd->add_option("--run-id", o.run_id,
                    "Re-initialize this initialized run from its definitions as they are now (agent and "
                    "assignment default to the run's own); it keeps its id, group, parent, dependencies and "
                    "attachments")
        ->type_name("RUN");
  }
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
  cmd->add_option("--backend", o.backend,
                  "Run on this backend instead of the agent's (where the agent unlocks it); without an agent, "
                  "run an ad-hoc agent on it");
  auto* unrestricted =
      cmd->add_flag("--unrestricted")->description("Let the backend bypass its safety checks (where the agent unlocks it)");
  auto* restricted =
      cmd->add_flag("--restricted")->description("Keep the backend's safety checks even if the agent bypasses them");
  unrestricted->excludes(restricted);
  cmd->add_option("--launcher", o.launcher, "Wrap the agent's command with this launcher");
  cmd->add_option("--environment", o.environment,
                  "Run the agent in this execution environment (environments/<name>.yaml) instead of the agent's");
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
  cmd->add_option("--label", o.labels,
                  "Run only on a daemon with this label (AGENTRY_LABELS; repeatable), beside the agent's "
                  "placement labels; none that has them: the run waits ready, saying why")
      ->type_name("LABEL")
      ->allow_extra_args(false);
  record = [&o, record_message, group, parent, unrestricted, restricted] {
    record_message();
    if (unrestricted->count() > 0) o.unrestricted = true;
    if (restricted->count() > 0) o.unrestricted = false;
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

}  // namespace

void add_run_commands(CLI::App& app, Invocation& inv) {
  for (bool start : {true, false}) {
    auto o = std::make_shared<StartOptions>();
    auto* cmd = start ? app.add_subcommand("run", "Start a run and follow it to the end; exits with the run's code")
                      : app.add_subcommand("init", "Create a run without starting it (status initialized)");
    std::function<void()> record;
    add_start_options(cmd, *o, record, start);
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

}  // namespace agentry::cli

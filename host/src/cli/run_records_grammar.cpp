// The grammar of the commands that read runs and keep their records
// (command_grammar.hpp): list, show, status, brief, ask, logs, audit, archive,
// unarchive, reset, delete, name, note, pin, unpin, group, files, diff, attachment. What
// they do is in commands/query_commands.cpp and its neighbours.

#include "cli/command_grammar.hpp"

#include <memory>
#include <optional>
#include <utility>

namespace agentry::cli {
namespace {

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

}  // namespace

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

}  // namespace agentry::cli

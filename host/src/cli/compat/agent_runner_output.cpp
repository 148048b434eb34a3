#include "cli/compat/agent_runner_output.hpp"

#include <boost/json.hpp>

#include <sstream>

namespace agentry::cli::compat {
namespace json = boost::json;
namespace {

std::string text_or(const json::object& o, const char* key, const std::string& fallback = "-") {
  auto* v = o.if_contains(key);
  return v && v->is_string() && !v->as_string().empty() ? std::string(v->as_string()) : fallback;
}

void indent(std::string& out, int depth) { out.append(static_cast<std::size_t>(depth) * 2, ' '); }

void write_pretty(std::string& out, const json::value& v, int depth) {
  if (v.is_object()) {
    const auto& o = v.as_object();
    if (o.empty()) {
      out += "{}";
      return;
    }
    out += "{\n";
    bool first = true;
    for (const auto& member : o) {
      if (!first) out += ",\n";
      first = false;
      indent(out, depth + 1);
      out += json::serialize(json::value(member.key()));
      out += ": ";
      write_pretty(out, member.value(), depth + 1);
    }
    out += "\n";
    indent(out, depth);
    out += "}";
  } else if (v.is_array()) {
    const auto& a = v.as_array();
    if (a.empty()) {
      out += "[]";
      return;
    }
    out += "[\n";
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (i) out += ",\n";
      indent(out, depth + 1);
      write_pretty(out, a[i], depth + 1);
    }
    out += "\n";
    indent(out, depth);
    out += "]";
  } else {
    out += json::serialize(v);
  }
}

}  // namespace

const char* help_text() {
  return R"(agent-runner (agentry): agent-runner's commands for agents, run by agentry

Usage: agent-runner <command> [options]

  run status <run> [--output-format json] [--field <name>]...
      The run: a few lines, or agent-runner's RunDetail (only the named top-level
      fields with --field, which needs --output-format json). Exit 0 whatever its status.
  run brief <run>           The prompt the run's first session receives.
  run ready <run> [--schedule-at|--schedule-delay|--schedule-cron <v> ...]
      Mark an initialized run ready to start (at its schedule).
  run --agent <a> [--assignment <b>] [--var k=v]... [--name <n>] [--cwd <dir>]
      [--message-file <f>] [--parent-run <id>] [--no-inherit-run-group]
      [--group-id <g>] [--add-task <title>]... [--model <m>] [--effort <e>]
      [--backend <b>] [--unrestricted] [--launcher <l>] [--environment <e>]
      [--timeout-sec <n>] [--max-retries <n>]
      [--detach [--no-notify-parent-on-complete]] [message...]
      Start a run and follow it to its end (--detach: print its id and return).
      Without --agent, --backend runs an ad-hoc agent on that backend.
  run --resume-run <run> [--detach] [--message-file <f>] [message...]
      Resume a run with a message and follow it to its end.
  init --agent <a> [same options as run, without --detach] [message...]
      Create a run without starting it; prints its id.
  init --run-id <run> [--agent <a>] [--assignment <b>] [--var k=v]... [message...]
      Re-initialize that initialized run from its definitions as they are now.
  task list <run> | show <run> <task>
  task set <run> <task> [--status <s>] [--notes <text>]
  task append-notes <run> <task> --text <text>
  task add <run> --title <t> [--body <b>]
  attachment list <run> [--scope run|group]
  attachment add <run> <file> [--name <n>]
  attachment download <run> <attachment> <output-path>
  attachment remove <run> <attachment>
  run audit <run> [--limit <n>]          run reset <run>       run delete <run>
  run reconfigure <run> [--var k=v]... [--message-file <f> | message...]
  run schedule <run> --at <t> | --delay <d> | --cron <e> [--timezone <z>] [--mode <m>]
      [--continue-on-failure];  run schedule enable|disable|clear <run>
  run queue-message <run> <text...>      run queued-messages <run>
  run remove-queued-message <run> <message-id>
  run set-name <run> <name> | --clear    run set-note <run> <text>    run clear-note <run>
  run pin|unpin|archive|unarchive <run>  run set-group <run> <group>  run clear-group <run>
  run set-backend-session <run> <id>     run clear-backend-session <run>
  run add-dep|remove-dep <run> --run <id> | --group <g>               run clear-deps <run>
  list runs [--cwd <dir> | --repo <name> | --global | --group-id <g>] [--include-archived]
  list agents|assignments|launchers|environments|tasks
  show agent|assignment|launcher|task <name|path>

Options everywhere: --output-format text|json, --connect <url>, --help.

The daemon: --connect, else AGENT_RUNNER_CONNECT, else AGENTRY_CONNECT (agents have it),
else embedded on $AGENTRY_HOME; a token from AGENTRY_DAEMON_TOKEN, else
AGENT_RUNNER_DAEMON_TOKEN. agent-runner's other commands (status, serve, run environment,
show environment, ...) are not here: use agent-runner's own CLI against agentry's
compat listener (docs/agent-runner.md).

Exit codes: 0 success (or initialized), 1 exhausted, 2 blocked, 3 refused (arguments,
validation, connectivity), 4 failed, 130 aborted or interrupted.
)";
}

std::string pretty_json(const json::value& value) {
  std::string out;
  write_pretty(out, value, 0);
  return out + "\n";
}

core::Result<json::object> project_fields(const json::object& detail, const std::vector<std::string>& fields) {
  json::object out;
  std::string missing;
  for (const auto& field : fields) {
    if (auto* v = detail.if_contains(field)) out[field] = *v;
    else missing += (missing.empty() ? "" : ", ") + field;
  }
  if (!missing.empty())
    return core::fail(core::ErrorCode::invalid_request, "--field names no field of the run's status: " + missing);
  return out;
}

std::string status_lines(const json::object& d) {
  std::ostringstream out;
  out << "Run: " << text_or(d, "runId") << "\n";
  if (auto name = text_or(d, "name", ""); !name.empty()) out << "Name: " << name << "\n";
  out << "Status: " << text_or(d, "status") << "\n";
  if (auto* agent = d.if_contains("agent"); agent && agent->is_object())
    out << "Agent: " << text_or(agent->as_object(), "name") << "\n";
  if (auto* assignment = d.if_contains("assignment"); assignment && assignment->is_object())
    out << "Assignment: " << text_or(assignment->as_object(), "name", text_or(assignment->as_object(), "sourcePath"))
        << "\n";
  out << "Cwd: " << text_or(d, "cwd") << "\n";
  if (auto* tasks = d.if_contains("tasks"); tasks && tasks->is_array()) {
    std::size_t completed = 0;
    for (const auto& t : tasks->as_array())
      if (t.is_object() && text_or(t.as_object(), "status", "") == "completed") ++completed;
    out << "Tasks: " << completed << "/" << tasks->as_array().size() << " completed\n";
  }
  return out.str();
}

std::string task_lines(const json::array& tasks) {
  if (tasks.empty()) return "no tasks\n";
  std::string out;
  for (const auto& t : tasks) {
    const auto& o = t.as_object();
    out += text_or(o, "id") + "  [" + text_or(o, "status") + "]  " + text_or(o, "title", "") + "\n";
  }
  return out;
}

std::string task_text(const json::object& task) {
  std::string out = "Task: " + text_or(task, "id") + "\nTitle: " + text_or(task, "title", "") +
                    "\nStatus: " + text_or(task, "status") + "\n";
  if (auto body = text_or(task, "body", ""); !body.empty()) out += "Body:\n" + body + "\n";
  if (auto notes = text_or(task, "notes", ""); !notes.empty()) out += "Notes:\n" + notes + "\n";
  return out;
}

std::string attachment_lines(const json::array& attachments, const std::string& run_id) {
  if (attachments.empty()) return "no attachments\n";
  std::string out;
  for (const auto& a : attachments) {
    const auto& o = a.as_object();
    std::string size = "?";
    if (auto* s = o.if_contains("size"); s && s->is_number()) size = std::to_string(s->to_number<std::int64_t>());
    out += text_or(o, "id") + "  " + size + " bytes  " + text_or(o, "name");
    if (auto owner = text_or(o, "ownerRunId", run_id); owner != run_id) out += "  (run " + owner + ")";
    out += "\n";
  }
  return out;
}

std::string audit_lines(const json::object& history) {
  const auto* events = history.if_contains("events");
  if (!events || !events->is_array() || events->as_array().empty()) return "No audit events found.\n";
  std::string out;
  for (const auto& envelope : events->as_array()) {
    const auto& event = envelope.at("event").as_object();
    out += text_or(event, "recordedAt") + "  " + text_or(event, "type");
    if (const auto* fields = event.if_contains("fields"); fields && fields->is_object() && !fields->as_object().empty())
      out += " " + json::serialize(*fields);
    out += "\n";
  }
  return out;
}

std::string queued_message_lines(const json::array& messages, const std::string& run_id) {
  if (messages.empty()) return "No queued resume messages for run " + run_id + ".\n";
  std::string out = "Queued resume messages for run " + run_id + ":\n";
  for (const auto& m : messages) {
    const auto& o = m.as_object();
    out += text_or(o, "id") + "  " + text_or(o, "createdAt") + "\n";
    std::istringstream text(text_or(o, "text", ""));
    for (std::string line; std::getline(text, line);) out += "  " + line + "\n";
  }
  return out;
}

}  // namespace agentry::cli::compat

#include "cli/render.hpp"

#include "cli/table.hpp"
#include "core/text.hpp"

#include <boost/json/serialize.hpp>

namespace agentry::cli {
namespace json = boost::json;

std::string text_of(const json::value& value) { return value.is_string() ? std::string(value.as_string()) : std::string(); }

std::string text_at(const json::value& object, std::string_view key, std::string_view fallback) {
  const json::value* v = object.is_object() ? object.as_object().if_contains(key) : nullptr;
  if (!v || v->is_null()) return std::string(fallback);
  if (v->is_string()) return std::string(v->as_string());
  if (v->is_bool()) return v->as_bool() ? "true" : "false";
  return json::serialize(*v);
}

std::string short_time(const std::string& iso) {
  if (iso.size() < 19 || iso[10] != 'T') return iso;
  return iso.substr(0, 10) + " " + iso.substr(11, 8);
}

std::string clock_time(const std::string& iso) {
  if (iso.size() < 19 || iso[10] != 'T') return {};
  return iso.substr(11, 8);
}

std::string duration_text(long long ms) {
  long long s = ms / 1000;
  auto two = [](long long n) { return (n < 10 ? "0" : "") + std::to_string(n); };
  if (s < 60) return std::to_string(s) + "s";
  if (s < 3600) return std::to_string(s / 60) + "m" + two(s % 60) + "s";
  return std::to_string(s / 3600) + "h" + two(s / 60 % 60) + "m";
}

namespace {

std::string status_text(const json::value& run) {
  std::string status = text_at(run, "status");
  if (text_at(run, "archived") == "true") status += " (archived)";
  return status;
}

std::string task_counts(const json::value& run) {
  const json::value* counts = run.as_object().if_contains("taskCounts");
  if (!counts || !counts->is_object() || text_at(*counts, "total") == "0") return "-";
  std::string out = text_at(*counts, "completed") + "/" + text_at(*counts, "total");
  if (text_at(*counts, "blocked") != "0" && !text_at(*counts, "blocked").empty())
    out += " (" + text_at(*counts, "blocked") + " blocked)";
  return out;
}

void field(std::string& out, const char* label, const std::string& value) {
  if (value.empty()) return;
  std::string padded(label);
  padded.resize(12, ' ');
  out += padded + value + "\n";
}

std::string indent(const std::string& text, const std::string& prefix) {
  std::string out = core::indent_lines(text, prefix);
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out;
}

}  // namespace

std::string render_run_list(const json::object& result) {
  const json::value* runs = result.if_contains("runs");
  if (!runs || !runs->is_array() || runs->as_array().empty()) return "no runs\n";
  Table table({"RUN", "STATUS", "AGENT", "ASSIGNMENT", "NAME", "TASKS", "CREATED"});
  for (const auto& run : runs->as_array()) {
    if (!run.is_object()) continue;
    table.add_row({text_at(run, "runId"), status_text(run), text_at(run, "agent"), text_at(run, "assignment", "-"),
                   truncate(text_at(run, "name"), 40), task_counts(run), short_time(text_at(run, "createdAt"))});
  }
  std::string out = table.render();
  if (auto* next = result.if_contains("nextCursor"); next && next->is_string())
    out += "(more runs: raise --limit, or pass --cursor " + std::string(next->as_string()) + ")\n";
  return out;
}

std::string render_run_detail(const json::object& run) {
  const json::value v(run);
  std::string out;
  std::string id = text_at(v, "runId");
  if (auto name = text_at(v, "name"); !name.empty()) id += "  " + name;
  field(out, "run", id);
  std::string status = status_text(v);
  if (auto reason = text_at(v, "statusReason"); !reason.empty()) status += ": " + reason;
  field(out, "status", status);
  std::string agent = text_at(v, "agent");
  std::string backend = text_at(v, "backend");
  if (auto model = text_at(v, "model"); !model.empty()) backend += ", model " + model;
  if (!backend.empty()) agent += " (" + backend + ")";
  field(out, "agent", agent);
  field(out, "assignment", text_at(v, "assignment"));
  field(out, "cwd", text_at(v, "cwd"));
  if (text_at(v, "runGroupId") != text_at(v, "runId")) field(out, "group", text_at(v, "runGroupId"));
  field(out, "parent", text_at(v, "parentRunId"));
  if (auto* deps = run.if_contains("dependencies"); deps && deps->is_array() && !deps->as_array().empty()) {
    std::string list;
    for (const auto& d : deps->as_array())
      list += (list.empty() ? "" : ", ") +
              (text_at(d, "type") == "group" ? "group:" + text_at(d, "groupId") : "run:" + text_at(d, "runId")) +
              (text_at(d, "satisfied") == "true" ? " (met)" : " (not met)");
    field(out, "after", list);
  }
  field(out, "created", short_time(text_at(v, "createdAt")));
  field(out, "started", short_time(text_at(v, "startedAt")));
  field(out, "finished", short_time(text_at(v, "finishedAt")));
  field(out, "sessions", text_at(v, "totalSessionCount", "0") + " (" + text_at(v, "totalAttemptCount", "0") +
                             " attempts, at most " + text_at(v, "maxAttemptsPerSession", "?") + " per session)");
  field(out, "backend id", text_at(v, "backendSessionId"));
  if (auto* owner = run.if_contains("owner"); owner && owner->is_object())
    field(out, "driven by", text_at(*owner, "name") + " (lease epoch " + text_at(*owner, "epoch") + ", until " +
                                short_time(text_at(*owner, "leaseExpiresAt")) + ")");
  if (auto* schedule = run.if_contains("schedule"); schedule && schedule->is_object()) {
    std::string what = text_at(*schedule, "kind") == "once"
                           ? "once at " + short_time(text_at(*schedule, "at"))
                           : "cron \"" + text_at(*schedule, "cron") + "\" " + text_at(*schedule, "timezone") + " (" +
                                 text_at(*schedule, "mode") + ")";
    if (auto* state = run.if_contains("scheduleState"); state && state->is_object()) {
      what += "; " + text_at(*state, "state");
      if (auto reason = text_at(*state, "reason"); !reason.empty()) what += ": " + reason;
    }
    field(out, "schedule", what);
  }
  if (auto note = text_at(v, "note"); !note.empty()) field(out, "note", note);
  if (auto message = text_at(v, "message"); !message.empty()) {
    out += "message\n" + indent(message, "  ");
  }
  if (auto* tasks = run.if_contains("tasks"); tasks && tasks->is_array() && !tasks->as_array().empty())
    out += "\n" + render_tasks(tasks->as_array());
  if (auto* approvals = run.if_contains("pendingApprovals");
      approvals && approvals->is_array() && !approvals->as_array().empty()) {
    Table table({"WAITING ON", "KIND", "ASKED", "SUMMARY"});
    for (const auto& a : approvals->as_array())
      table.add_row({text_at(a, "approvalId"), text_at(a, "kind"), short_time(text_at(a, "requestedAt")),
                     truncate(text_at(a, "summary"), 70)});
    out += "\n" + table.render() + "answer with: agentry approve " + text_at(v, "runId") + " <id> [--deny]\n";
  }
  if (auto* notifications = run.if_contains("notifications");
      notifications && notifications->is_array() && !notifications->as_array().empty()) {
    Table table({"NOTIFY", "EVENT", "TARGET", "STATE", "ATTEMPTS", "ERROR"});
    for (const auto& n : notifications->as_array())
      table.add_row({text_at(n, "id"), text_at(n, "event"), truncate(text_at(n, "target"), 50), text_at(n, "state"),
                     text_at(n, "attempts"), truncate(text_at(n, "lastError"), 50)});
    out += "\n" + table.render();
  }
  if (auto* sessions = run.if_contains("sessions"); sessions && sessions->is_array() && !sessions->as_array().empty()) {
    Table table({"SESSION", "STATUS", "STARTED", "ENDED", "ATTEMPTS", "REASON"});
    for (const auto& s : sessions->as_array()) {
      std::string attempts;
      if (auto* list = s.as_object().if_contains("attempts"); list && list->is_array())
        for (const auto& a : list->as_array())
          attempts += (attempts.empty() ? "" : " ") + text_at(a, "attemptNumber") + ":" + text_at(a, "outcome", "running");
      table.add_row({text_at(s, "index"), text_at(s, "status"), short_time(text_at(s, "startedAt")),
                     short_time(text_at(s, "endedAt")), attempts, truncate(text_at(s, "endReason"), 60)});
    }
    out += "\n" + table.render();
  }
  return out;
}

namespace {

std::string count_of(const std::string& n, const std::string& word) {
  return n + " " + word + (n == "1" ? "" : "s");
}

}  // namespace

std::string render_run_status(const json::object& run) {
  const json::value v(run);
  std::string out = text_at(v, "runId") + " " + status_text(v);
  if (auto reason = text_at(v, "statusReason"); !reason.empty()) out += ": " + reason;
  auto part = [&out](const std::string& text) { out += " · " + text; };

  const json::value* counts = run.if_contains("taskCounts");
  if (!counts || !counts->is_object() || text_at(*counts, "total", "0") == "0") {
    part("no tasks");
  } else {
    std::string tasks = "tasks " + text_at(*counts, "completed", "0") + "/" + text_at(*counts, "total") + " completed";
    std::string more;
    for (auto [key, label] : {std::pair{"inProgress", " in progress"}, std::pair{"blocked", " blocked"}})
      if (auto n = text_at(*counts, key, "0"); n != "0") more += (more.empty() ? "" : ", ") + n + label;
    part(more.empty() ? tasks : tasks + " (" + more + ")");
  }
  part(count_of(text_at(v, "totalAttemptCount", "0"), "attempt") + ", " +
       count_of(text_at(v, "totalSessionCount", "0"), "session"));

  const json::value* live = run.if_contains("currentSession");
  if (live && live->is_object()) {
    std::string since = short_time(text_at(*live, "startedAt"));
    part("session " + text_at(*live, "index") + " live" + (since.empty() ? "" : " since " + since));
  } else if (auto finished = short_time(text_at(v, "finishedAt")); !finished.empty()) {
    part("finished " + finished);
  }
  if (auto* task = run.if_contains("activeTask"); task && task->is_object()) part("on task " + text_at(*task, "id"));
  if (auto* approvals = run.if_contains("pendingApprovals");
      approvals && approvals->is_array() && !approvals->as_array().empty())
    part(count_of(std::to_string(approvals->as_array().size()), "approval") + " waiting (agentry show " +
         text_at(v, "runId") + ")");
  if (auto queued = text_at(v, "queuedMessageCount", "0"); queued != "0") part(count_of(queued, "queued message"));
  return out + "\n";
}

std::string render_tasks(const json::array& tasks) {
  if (tasks.empty()) return "no tasks\n";
  Table table({"TASK", "STATUS", "TITLE", "NOTES"});
  for (const auto& t : tasks)
    table.add_row({text_at(t, "id"), text_at(t, "status"), truncate(text_at(t, "title"), 50),
                   truncate(text_at(t, "notes"), 60)});
  return table.render();
}

std::string render_task(const json::object& task) {
  const json::value v(task);
  std::string out;
  field(out, "task", text_at(v, "id"));
  field(out, "run", text_at(v, "runId"));
  field(out, "status", text_at(v, "status"));
  field(out, "title", text_at(v, "title"));
  field(out, "source", text_at(v, "source"));
  field(out, "updated", short_time(text_at(v, "updatedAt")));
  if (auto body = text_at(v, "body"); !body.empty()) out += "body\n" + indent(body, "  ");
  if (auto notes = text_at(v, "notes"); !notes.empty()) out += "notes\n" + indent(notes, "  ");
  return out;
}

std::string render_audit(const json::array& events) {
  if (events.empty()) return "no audit records\n";
  Table table({"CURSOR", "AT", "TYPE", "ACTOR", "DATA"});
  for (const auto& e : events) {
    std::string data;
    if (auto* d = e.as_object().if_contains("data"); d && d->is_object() && !d->as_object().empty())
      data = json::serialize(*d);
    table.add_row({text_at(e, "cursor"), short_time(text_at(e, "at")), text_at(e, "type"), text_at(e, "actor"),
                   truncate(data, 100)});
  }
  return table.render();
}

std::string render_backends(const json::object& result) {
  std::string out;
  Table table({"BACKEND", "VERSION", "FEATURES", "DESCRIPTION"});
  if (auto* list = result.if_contains("backends"); list && list->is_array())
    for (const auto& b : list->as_array()) {
      std::string features;
      if (auto* f = b.as_object().if_contains("features"); f && f->is_array())
        for (const auto& x : f->as_array()) features += (features.empty() ? "" : ",") + std::string(x.is_string() ? x.as_string() : "");
      table.add_row({text_at(b, "id"), text_at(b, "version"), features.empty() ? "-" : features,
                     truncate(text_at(b, "description"), 70)});
    }
  out += table.render();
  if (auto* errors = result.if_contains("loadErrors"); errors && errors->is_array() && !errors->as_array().empty()) {
    out += "\nlibraries that did not load:\n";
    for (const auto& e : errors->as_array()) out += "  " + text_at(e, "path") + ": " + text_at(e, "message") + "\n";
  }
  return out;
}

std::string render_daemons(const json::object& result) {
  Table table({"NAME", "STATE", "LIVE RUNS", "CAPACITY", "LABELS", "ROOTS", "URL", "HEARTBEAT", "VERSION"});
  // A list field as one cell: its strings joined with `separator`, "-" when empty.
  const auto joined = [](const json::object& o, const char* field, const char* separator) {
    std::string out;
    if (auto* l = o.if_contains(field); l && l->is_array())
      for (const auto& x : l->as_array())
        if (x.is_string()) out += (out.empty() ? "" : separator) + std::string(x.as_string());
    return out.empty() ? std::string("-") : out;
  };
  if (auto* list = result.if_contains("daemons"); list && list->is_array())
    for (const auto& d : list->as_array()) {
      const auto& o = d.as_object();
      const auto* capacity = o.if_contains("capacity");
      const bool self = o.contains("self") && o.at("self").is_bool() && o.at("self").as_bool();
      table.add_row({text_at(d, "name") + (self ? " (this one)" : ""), text_at(d, "state"),
                     std::to_string(o.at("liveRuns").to_number<std::int64_t>()),
                     capacity && capacity->is_int64() ? std::to_string(capacity->as_int64()) : "-",
                     joined(o, "labels", ","), joined(o, "workspaceRoots", ":"), text_at(d, "advertiseUrl"),
                     std::to_string(o.at("heartbeatAgeMs").to_number<std::int64_t>() / 1000) + "s ago",
                     text_at(d, "version")});
    }
  return table.render();
}

namespace {

std::string warnings_text(const json::object& object) {
  std::string out;
  if (auto* w = object.if_contains("warnings"); w && w->is_array())
    for (const auto& x : w->as_array()) {
      std::string where = text_at(x, "path");
      if (auto f = text_at(x, "field"); !f.empty()) where += " (" + f + ")";
      out += "  warning: " + where + ": " + text_at(x, "message") + "\n";
    }
  return out;
}

}  // namespace

std::string render_definition_list(const json::object& list) {
  std::string out;
  const json::value* entries = list.if_contains("entries");
  if (!entries || !entries->is_array() || entries->as_array().empty()) {
    out = "none\n";
  } else {
    Table table({"NAME", "DESCRIPTION", "SOURCE"});
    for (const auto& e : entries->as_array())
      table.add_row({text_at(e, "name"), truncate(text_at(e, "description"), 60), text_at(e, "sourcePath")});
    out = table.render();
  }
  return out + warnings_text(list);
}

std::string render_definition_detail(const json::object& detail) {
  std::string out;
  std::string kind = text_at(json::value(detail), "kind");
  const json::value* body = nullptr;
  for (const auto& [key, value] : detail)
    if (value.is_object() && key != "warnings") body = &value;
  if (body) {
    std::string instructions;
    for (const auto& [key, value] : body->as_object()) {
      if (key == "instructions") {
        instructions = value.is_string() ? std::string(value.as_string()) : "";
        continue;
      }
      if (value.is_null() || (value.is_string() && value.as_string().empty())) continue;
      std::string label(key);
      label.resize(std::max<std::size_t>(label.size() + 1, 14), ' ');
      out += label + (value.is_string() ? std::string(value.as_string()) : json::serialize(value)) + "\n";
    }
    if (!instructions.empty()) out += "instructions\n" + indent(instructions, "  ");
  }
  if (auto source = text_at(json::value(detail), "sourcePath"); !source.empty()) out += "source        " + source + "\n";
  return out + warnings_text(detail);
}

}  // namespace agentry::cli

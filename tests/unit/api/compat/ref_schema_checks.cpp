#include "ref_schema_checks.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <utility>

namespace agentry::api::compat::testing {
namespace {
namespace json = boost::json;

using Check = std::function<void(const json::value&, const std::string& path, Problems&)>;

void report(Problems& p, const std::string& path, const std::string& what) {
  p.push_back((path.empty() ? std::string("$") : path) + ": " + what);
}

std::string shown(const json::value& v) {
  auto text = json::serialize(v);
  return text.size() > 80 ? text.substr(0, 77) + "..." : text;
}

// ---- scalar checks ----------------------------------------------------------------

Check string_t(std::size_t min_size = 0) {
  return [min_size](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_string()) return report(p, path, "expected a string, got " + shown(v));
    if (v.as_string().size() < min_size) report(p, path, "expected a non-empty string");
  };
}

bool is_number(const json::value& v) { return v.is_int64() || v.is_uint64() || v.is_double(); }

Check number_t() {
  return [](const json::value& v, const std::string& path, Problems& p) {
    if (!is_number(v)) report(p, path, "expected a number, got " + shown(v));
  };
}

/// An integer (zod .int()) no smaller than `min`.
Check integer_t(std::int64_t min) {
  return [min](const json::value& v, const std::string& path, Problems& p) {
    if (v.is_uint64()) return;
    if (v.is_double() && v.as_double() == static_cast<double>(static_cast<std::int64_t>(v.as_double())) &&
        v.as_double() >= static_cast<double>(min))
      return;
    if (!v.is_int64()) return report(p, path, "expected an integer, got " + shown(v));
    if (v.as_int64() < min) report(p, path, "expected an integer >= " + std::to_string(min) + ", got " + shown(v));
  };
}

/// A number (integer or not) no smaller than `min` (zod .nonnegative() without .int()).
Check number_min(double min) {
  return [min](const json::value& v, const std::string& path, Problems& p) {
    if (!is_number(v)) return report(p, path, "expected a number, got " + shown(v));
    const double d = v.is_int64() ? static_cast<double>(v.as_int64())
                     : v.is_uint64() ? static_cast<double>(v.as_uint64())
                                     : v.as_double();
    if (d < min) report(p, path, "expected a number >= " + std::to_string(min));
  };
}

Check bool_t() {
  return [](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_bool()) report(p, path, "expected a boolean, got " + shown(v));
  };
}

Check any_t() {
  return [](const json::value&, const std::string&, Problems&) {};
}

Check literal(std::string expected) {
  return [expected](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_string() || v.as_string() != expected)
      report(p, path, "expected \"" + expected + "\", got " + shown(v));
  };
}

Check literal_int(std::int64_t expected) {
  return [expected](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_int64() || v.as_int64() != expected)
      report(p, path, "expected " + std::to_string(expected) + ", got " + shown(v));
  };
}

Check enum_of(std::vector<std::string> values) {
  return [values](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_string() || std::find(values.begin(), values.end(), std::string(v.as_string())) == values.end()) {
      std::string list;
      for (const auto& x : values) list += (list.empty() ? "" : "|") + x;
      report(p, path, "expected one of " + list + ", got " + shown(v));
    }
  };
}

Check null_or(Check inner) {
  return [inner](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_null()) inner(v, path, p);
  };
}

Check null_only() {
  return [](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_null()) report(p, path, "expected null, got " + shown(v));
  };
}

// ---- composite checks -------------------------------------------------------------

Check array_of(Check item, bool nonempty = false) {
  return [item, nonempty](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_array()) return report(p, path, "expected an array, got " + shown(v));
    if (nonempty && v.as_array().empty()) report(p, path, "expected a non-empty array");
    std::size_t i = 0;
    for (const auto& x : v.as_array()) item(x, path + "[" + std::to_string(i++) + "]", p);
  };
}

Check record_of(Check value) {
  return [value](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_object()) return report(p, path, "expected an object (record), got " + shown(v));
    for (const auto& [k, x] : v.as_object()) value(x, path + "." + std::string(k), p);
  };
}

struct Member {
  std::string name;
  Check check;
  bool optional;  // zod .optional(): may be absent, never null unless its check allows null
};
Member req(std::string name, Check check) { return {std::move(name), std::move(check), false}; }
Member opt(std::string name, Check check) { return {std::move(name), std::move(check), true}; }

/// An object with exactly these members (see the header); `refine` runs when the shape passed.
Check object_of(std::vector<Member> members, Check refine = nullptr) {
  return [members, refine](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_object()) return report(p, path, "expected an object, got " + shown(v));
    const auto& o = v.as_object();
    const auto before = p.size();
    for (const auto& m : members) {
      const auto* x = o.if_contains(m.name);
      if (x == nullptr) {
        if (!m.optional) report(p, path + "." + m.name, "required member is absent");
        continue;
      }
      m.check(*x, path + "." + m.name, p);
    }
    for (const auto& [k, x] : o) {
      const bool known = std::any_of(members.begin(), members.end(), [&](const Member& m) { return m.name == k; });
      if (!known) report(p, path + "." + std::string(k), "member not in the schema");
    }
    if (refine && p.size() == before) refine(v, path, p);
  };
}

/// A discriminated union on `key`.
Check union_on(std::string key, std::map<std::string, Check> variants) {
  return [key, variants](const json::value& v, const std::string& path, Problems& p) {
    if (!v.is_object()) return report(p, path, "expected an object, got " + shown(v));
    const auto* tag = v.as_object().if_contains(key);
    if (tag == nullptr || !tag->is_string()) return report(p, path + "." + key, "discriminator absent or not a string");
    auto it = variants.find(std::string(tag->as_string()));
    if (it == variants.end()) return report(p, path + "." + key, "unknown variant " + shown(*tag));
    it->second(v, path, p);
  };
}

Problems run(const Check& check, const json::value& v) {
  Problems p;
  check(v, "", p);
  return p;
}

// ---- agent-runner's vocabularies ----------------------------------------------------

const std::vector<std::string> run_statuses{"initialized", "ready",     "running", "success",
                                            "blocked",     "exhausted", "aborted", "error"};
const std::vector<std::string> task_statuses{"pending", "in_progress", "completed", "blocked"};
const std::vector<std::string> hook_phases{"prepare", "beforeAttempt", "afterAttempt", "afterExit", "taskTransition"};
const std::vector<std::string> lockable_fields{"cwd",          "backend", "model",      "effort",
                                               "instructions", "message", "timeoutSec", "unrestricted",
                                               "maxRetries",   "tasks",   "schedule"};
const std::vector<std::string> effort_levels{"off", "minimal", "low", "medium", "high", "xhigh", "max"};

Check run_status() { return enum_of(run_statuses); }
Check str() { return string_t(); }
Check str_or_null() { return null_or(string_t()); }
Check num() { return number_t(); }
Check num_or_null() { return null_or(number_t()); }

// ---- run DTOs ---------------------------------------------------------------------

Check resume_source() {
  return null_or(object_of({req("kind", literal("parent_completion_notification")),
                            req("childRunId", str()),
                            req("notificationId", str())}));
}

Check session_summary() {
  return object_of({req("sessionIndex", num()),
                    req("status", run_status()),
                    req("startedAt", str()),
                    req("endedAt", str_or_null()),
                    req("exitCode", num_or_null()),
                    req("message", str_or_null()),
                    req("firstAttemptNumber", num_or_null()),
                    req("lastAttemptNumber", num_or_null()),
                    req("attemptCount", num()),
                    req("maxAttemptsPerSession", num()),
                    req("backendSessionIdAtStart", str_or_null()),
                    req("backendSessionIdAtEnd", str_or_null()),
                    req("resumeSource", resume_source())});
}

Check schedule_object() {
  return object_of(
      {req("enabled", bool_t()),
       req("runAt", str()),
       req("recurrence",
           null_or(object_of({req("schedule", object_of({req("type", literal("cron")),
                                                         req("expression", str()),
                                                         req("timezone", str())})),
                              req("mode", enum_of({"reuse", "reset", "clone"})),
                              req("continueOnFailure", bool_t())})))});
}

Check execution() {
  auto refine = [](const json::value& v, const std::string& path, Problems& p) {
    const auto& o = v.as_object();
    if (o.at("hostMode") != o.at("controller").as_object().at("kind"))
      report(p, path, "execution.hostMode must equal execution.controller.kind");
  };
  return object_of({req("hostMode", enum_of({"embedded", "daemon"})),
                    req("controller", union_on("kind", {{"embedded", object_of({req("kind", literal("embedded"))})},
                                                        {"daemon", object_of({req("kind", literal("daemon")),
                                                                              req("daemonInstanceId", str())})}}))},
                   refine);
}

Check capabilities() {
  auto refine = [](const json::value& v, const std::string& path, Problems& p) {
    // Their daemon states a reason exactly when the action is refused.
    const auto& o = v.as_object();
    if (o.at("canAbort").as_bool() == o.contains("abortReason"))
      report(p, path + ".abortReason", "present exactly when canAbort is false");
    if (o.at("canReconfigure").as_bool() == o.contains("reconfigureReason"))
      report(p, path + ".reconfigureReason", "present exactly when canReconfigure is false");
  };
  return object_of({req("canArchive", bool_t()),
                    req("canUnarchive", bool_t()),
                    req("canReset", bool_t()),
                    req("canDelete", bool_t()),
                    req("canReady", bool_t()),
                    req("canResume", bool_t()),
                    req("canAbort", bool_t()),
                    opt("abortReason", enum_of({"already_terminal", "not_active_in_daemon"})),
                    req("canReconfigure", bool_t()),
                    opt("reconfigureReason", enum_of({"archived", "not_initialized"})),
                    req("taskMutation", object_of({req("canSetStatus", bool_t()),
                                                   req("canEditNotes", bool_t()),
                                                   req("canAdd", bool_t()),
                                                   req("canEditPending", bool_t()),
                                                   req("canDeletePending", bool_t())}))},
                   refine);
}

Check dependency_state() {
  auto refine = [](const json::value& v, const std::string& path, Problems& p) {
    const auto& o = v.as_object();
    const auto total = o.at("total").to_number<std::int64_t>();
    const auto satisfied = o.at("satisfied").to_number<std::int64_t>();
    if (o.at("unsatisfied").to_number<std::int64_t>() != total - satisfied)
      report(p, path, "unsatisfied must be total - satisfied");
    if (o.at("ready").as_bool() != (total == satisfied)) report(p, path, "ready must mean nothing is unsatisfied");
  };
  return object_of({req("ready", bool_t()), req("total", num()), req("satisfied", num()), req("unsatisfied", num())},
                   refine);
}

std::vector<Member> run_dependency_members() {
  return {req("type", literal("run")),        req("runId", str()),
          req("name", str_or_null()),         req("status", null_or(run_status())),
          req("effectiveStatus", null_or(run_status())), req("archivedAt", str_or_null()),
          req("satisfied", bool_t()),         req("missing", bool_t())};
}

Check dependency() {
  return union_on("type", {{"run", object_of(run_dependency_members())},
                           {"group", object_of({req("type", literal("group")),
                                                req("groupId", str()),
                                                req("total", num()),
                                                req("successful", num()),
                                                req("unsatisfied", num()),
                                                req("archivedExcluded", num()),
                                                req("satisfied", bool_t()),
                                                req("missing", bool_t())})}});
}

Check dependent() {
  auto via_run = run_dependency_members();
  via_run.push_back(req("via", literal("run")));
  auto via_group = run_dependency_members();
  via_group.push_back(req("via", literal("group")));
  via_group.push_back(req("dependencyGroupId", str()));
  return union_on("via", {{"run", object_of(via_run)}, {"group", object_of(via_group)}});
}

std::vector<Member> attachment_members() {
  return {req("id", str()),     req("name", str()),    req("mimeType", str()),    req("size", num()),
          req("sha256", str()), req("addedAt", str()), req("relativePath", str())};
}

Check attachment() { return object_of(attachment_members()); }

Check attachment_entry() {
  auto members = attachment_members();
  members.push_back(req("ownerRunId", str()));
  return object_of(members);
}

Check queued_message() {
  return object_of(
      {req("id", str()), req("text", str()), req("createdAt", str()), req("source", resume_source())});
}

Check hook_descriptor() {
  return object_of({req("hookId", str()),
                    req("phase", enum_of(hook_phases)),
                    req("source", object_of({opt("builtin", str()), opt("name", str()), opt("path", str())})),
                    req("resolvedPath", str_or_null()),
                    req("taskScopeId", str_or_null()),
                    req("when", null_or(record_of(any_t()))),
                    opt("config", any_t())});
}

Check hook_audit() {
  return object_of({req("phase", enum_of(hook_phases)),
                    req("hookId", str()),
                    req("startedAt", str()),
                    req("endedAt", str()),
                    req("outcome", str()),
                    req("sessionIndex", num_or_null()),
                    req("attemptNumber", num_or_null()),
                    req("taskId", str_or_null()),
                    req("summary", str_or_null())});
}

Check task() {
  return object_of({req("id", str()),
                    req("title", str()),
                    req("body", str()),
                    req("status", enum_of(task_statuses)),
                    req("notes", str())});
}

Check active_task() { return null_or(object_of({req("id", str()), req("title", str())})); }

Check schedule_state() { return enum_of({"none", "paused", "future", "due"}); }

Check run_summary() {
  return object_of({req("runId", str()),
                    req("parentRunId", str_or_null()),
                    req("runGroupId", str()),
                    req("repo", str()),
                    req("status", run_status()),
                    req("effectiveStatus", run_status()),
                    req("archivedAt", str_or_null()),
                    req("pinned", bool_t()),
                    req("notePresent", bool_t()),
                    req("agentName", str()),
                    req("name", str_or_null()),
                    req("assignmentName", str_or_null()),
                    req("backend", str()),
                    req("model", str_or_null()),
                    req("cwd", str()),
                    req("startedAt", str()),
                    req("updatedAt", str()),
                    req("endedAt", str_or_null()),
                    req("totalAttemptCount", num()),
                    req("totalSessionCount", num()),
                    req("maxAttemptsPerSession", num()),
                    req("currentSession", null_or(session_summary())),
                    req("lastSession", null_or(session_summary())),
                    req("tasksCompleted", num()),
                    req("tasksTotal", num()),
                    req("attachmentCount", num()),
                    req("queuedResumeMessageCount", num()),
                    opt("hookCount", num()),
                    req("dependencyState", dependency_state()),
                    req("schedule", null_or(schedule_object())),
                    req("scheduleState", schedule_state()),
                    req("activeTask", active_task()),
                    req("execution", execution()),
                    req("capabilities", capabilities())});
}

Check run_detail() {
  return object_of({req("runId", str()),
                    req("parentRunId", str_or_null()),
                    req("runGroupId", str()),
                    req("repo", str()),
                    req("status", run_status()),
                    req("effectiveStatus", run_status()),
                    req("archivedAt", str_or_null()),
                    req("isLive", bool_t()),
                    req("workspaceDir", str()),
                    req("agent", object_of({req("name", str()), req("sourcePath", str_or_null())})),
                    // strict in their schema
                    req("assignment", null_or(object_of({req("name", str()), req("sourcePath", str())}))),
                    req("backend", str()),
                    req("model", str_or_null()),
                    req("effort", str_or_null()),
                    req("name", str_or_null()),
                    req("note", str_or_null()),
                    req("pinned", bool_t()),
                    req("backendSessionId", str_or_null()),
                    req("cwd", str()),
                    req("unrestricted", bool_t()),
                    req("timeoutSec", num()),
                    req("startedAt", str()),
                    req("updatedAt", str()),
                    req("endedAt", str_or_null()),
                    req("exitCode", num_or_null()),
                    req("totalAttemptCount", num()),
                    req("totalSessionCount", num()),
                    req("maxAttemptsPerSession", num()),
                    req("sessions", array_of(session_summary())),
                    req("currentSession", null_or(session_summary())),
                    req("lastSession", null_or(session_summary())),
                    req("tasksCompleted", num()),
                    req("tasksTotal", num()),
                    req("attachments", array_of(attachment())),
                    req("queuedResumeMessages", array_of(queued_message())),
                    opt("resolvedHooks", array_of(hook_descriptor())),
                    opt("hookState", record_of(any_t())),
                    opt("hookAudits", array_of(hook_audit())),
                    req("dependencies", array_of(dependency())),
                    req("dependents", array_of(dependent())),
                    req("schedule", null_or(schedule_object())),
                    req("scheduleState", schedule_state()),
                    req("tasks", array_of(task())),
                    req("activeTask", active_task()),
                    req("message", str_or_null()),
                    req("pendingPrompt", str_or_null()),
                    req("callerInstructions", str_or_null()),
                    req("lockedFields", array_of(enum_of(lockable_fields))),
                    req("runtimeVars", record_of(any_t())),
                    req("execution", execution()),
                    // A container environment is never produced by agentry (W27).
                    req("executionEnvironment", null_only()),
                    req("capabilities", capabilities())});
}

// ---- results ----------------------------------------------------------------------

Check result_of(std::vector<Member> extra) {
  std::vector<Member> members{req("runId", str()), req("updatedAt", str())};
  for (auto& m : extra) members.push_back(std::move(m));
  members.push_back(req("changed", bool_t()));
  return object_of(members);
}

Check dependency_ref() {
  return union_on("type", {{"run", object_of({req("type", literal("run")), req("runId", str())})},
                           {"group", object_of({req("type", literal("group")), req("groupId", str())})}});
}

// ---- audit ------------------------------------------------------------------------

Check audit_event() {
  return object_of({req("type", str()),
                    req("recordedAt", str()),
                    req("source", enum_of({"system", "cli", "daemon", "task_command"})),
                    req("hostMode", enum_of({"embedded", "daemon"})),
                    opt("controllerInstanceId", str()),
                    opt("sessionIndex", integer_t(0)),
                    opt("attemptNumber", integer_t(0)),
                    req("fields", record_of(any_t()))});
}

Check audit_envelope() {
  return object_of({req("runId", str()), req("cursor", integer_t(1)), req("event", audit_event())});
}

// ---- workspace --------------------------------------------------------------------

Check workspace_entry() {
  return object_of({req("path", str()),
                    req("name", str()),
                    req("kind", enum_of({"directory", "file"})),
                    req("size", null_or(integer_t(0))),
                    req("mtimeMs", null_or(number_min(0))),
                    req("supportedText", bool_t()),
                    req("markdown", bool_t())});
}

// ---- definitions ------------------------------------------------------------------

Check attempt_when_value() {
  return [](const json::value& v, const std::string& path, Problems& p) {
    if (v.is_array()) return array_of(integer_t(0), true)(v, path, p);
    integer_t(0)(v, path, p);
  };
}

Check hook_entry(const std::string& phase) {
  Check when;
  if (phase == "prepare") {
    when = record_of(any_t());
  } else if (phase == "taskTransition") {
    when = object_of({opt("taskId", string_t(1)),
                      opt("taskIds", array_of(string_t(1), true)),
                      opt("toStatus", array_of(enum_of(task_statuses), true)),
                      opt("fromStatus", array_of(enum_of(task_statuses), true)),
                      opt("source", array_of(enum_of({"run-loop", "task-set", "task-append-notes", "task-add"}), true))},
                     [](const json::value& v, const std::string& path, Problems& p) {
                       if (v.as_object().contains("taskId") && v.as_object().contains("taskIds"))
                         report(p, path, "taskId and taskIds together");
                     });
  } else {
    when = object_of({opt("sessionIndex", attempt_when_value()), opt("attemptIndexInSession", attempt_when_value())});
  }
  auto exactly_one_source = [](const json::value& v, const std::string& path, Problems& p) {
    const auto& o = v.as_object();
    const int named = int(o.contains("builtin")) + int(o.contains("name")) + int(o.contains("path"));
    if (named != 1) report(p, path, "a hook entry names exactly one of builtin, name, path");
  };
  return object_of({opt("builtin", string_t(1)),
                    opt("name", string_t(1)),
                    opt("path", string_t(1)),
                    opt("with", any_t()),
                    opt("when", null_or(when))},
                   exactly_one_source);
}

Check task_def() {
  auto title_rule = [](const json::value& v, const std::string& path, Problems& p) {
    const auto& title = v.as_object().at("title").as_string();
    if (title.empty() || title.size() > 200 || std::string_view(title).find_first_of("\r\n") != std::string_view::npos)
      report(p, path + ".title", "1-200 characters on one line");
  };
  return object_of({req("id", string_t(1)),
                    req("title", string_t(1)),
                    opt("body", str()),
                    opt("hooks", array_of(hook_entry("taskTransition")))},
                   title_rule);
}

Check var_def() {
  auto enum_values = [](const json::value& v, const std::string& path, Problems& p) {
    const auto& o = v.as_object();
    const auto* type = o.if_contains("type");
    if (type && type->as_string() == "enum" && (!o.contains("values") || o.at("values").as_array().empty()))
      report(p, path + ".values", "enum vars need values");
  };
  return object_of({opt("type", enum_of({"string", "number", "boolean", "enum"})),
                    opt("required", bool_t()),
                    opt("requiredAt", enum_of({"initial", "prepare"})),
                    opt("sources", array_of(enum_of({"cli", "web", "env", "parent"}), true)),
                    opt("envName", str()),
                    opt("default", any_t()),
                    opt("description", str()),
                    opt("values", array_of(str()))},
                   enum_values);
}

Check agent_config() {
  auto launcher = [](const json::value& v, const std::string& path, Problems& p) {
    if (v.is_string()) return string_t(1)(v, path, p);
    object_of({req("command", string_t(1)), opt("args", array_of(str()))})(v, path, p);
  };
  return object_of({req("schemaVersion", literal_int(1)),
                    req("name", string_t(1)),
                    req("backend", string_t(1)),
                    opt("model", str()),
                    opt("effort", enum_of(effort_levels)),
                    opt("launcher", launcher),
                    opt("executionEnvironment", string_t(1)),
                    opt("backendConfig", record_of(any_t())),
                    opt("backendArgs", record_of(object_of({req("extraArgs", array_of(string_t(1)))}))),
                    opt("timeoutSec", integer_t(1)),
                    opt("unrestricted", bool_t()),
                    opt("lockedFields", array_of(enum_of(lockable_fields)))});
}

Check assignment_config() {
  std::vector<Member> phases;
  for (const auto& phase : hook_phases) phases.push_back(opt(phase, array_of(hook_entry(phase))));
  auto max_retries = [](const json::value& v, const std::string& path, Problems& p) {
    integer_t(0)(v, path, p);
    if (v.is_int64() && v.as_int64() > 20) report(p, path, "at most 20");
  };
  return object_of({req("schemaVersion", literal_int(1)),
                    req("name", string_t(1)),
                    opt("cwd", string_t(1)),
                    opt("schedule", object_of({opt("at", string_t(1)),
                                               opt("delay", string_t(1)),
                                               opt("cron", string_t(1)),
                                               opt("timezone", string_t(1)),
                                               opt("mode", enum_of({"reuse", "reset", "clone"})),
                                               opt("continueOnFailure", bool_t())})),
                    opt("maxRetries", max_retries),
                    opt("callerInstructions", str()),
                    opt("vars", record_of(var_def())),
                    opt("hooks", object_of(phases)),
                    opt("lockedFields", array_of(enum_of(lockable_fields))),
                    opt("tasks", array_of(task_def()))});
}

Check definition_detail() {
  auto launcher_definition = union_on(
      "kind", {{"direct", object_of({req("kind", literal("direct")),
                                     req("name", literal("direct")),
                                     req("sourcePath", null_only()),
                                     req("root", literal("builtin"))})},
               {"prefix", object_of({req("kind", literal("prefix")),
                                     req("name", str()),
                                     req("command", str()),
                                     req("args", array_of(str())),
                                     req("sourcePath", str()),
                                     req("root", literal("config")),
                                     req("config", object_of({req("schemaVersion", literal_int(1)),
                                                              opt("name", string_t(1)),
                                                              req("command", string_t(1)),
                                                              opt("args", array_of(str()))}))})}});
  return union_on("kind", {{"agent", object_of({req("kind", literal("agent")),
                                                req("config", agent_config()),
                                                req("instructions", str()),
                                                req("sourcePath", str_or_null())})},
                           {"assignment", object_of({req("kind", literal("assignment")),
                                                     req("config", assignment_config()),
                                                     req("instructions", str()),
                                                     req("sourcePath", str())})},
                           {"launcher", object_of({req("kind", literal("launcher")), req("definition", launcher_definition)})},
                           {"task", object_of({req("kind", literal("task")), req("task", task_def()), req("sourcePath", str())})}});
}

}  // namespace

Problems check_run_summary(const json::value& v) { return run(run_summary(), v); }
Problems check_run_detail(const json::value& v) { return run(run_detail(), v); }
Problems check_run_session(const json::value& v) { return run(session_summary(), v); }
Problems check_capabilities(const json::value& v) { return run(capabilities(), v); }
Problems check_schedule(const json::value& v) { return run(null_or(schedule_object()), v); }
Problems check_schedule_state(const json::value& v) { return run(schedule_state(), v); }
Problems check_dependency_state(const json::value& v) { return run(dependency_state(), v); }
Problems check_dependency(const json::value& v) { return run(dependency(), v); }
Problems check_dependent(const json::value& v) { return run(dependent(), v); }
Problems check_attachment(const json::value& v) { return run(attachment(), v); }
Problems check_attachment_entry(const json::value& v) { return run(attachment_entry(), v); }
Problems check_queued_message(const json::value& v) { return run(queued_message(), v); }
Problems check_hook_descriptor(const json::value& v) { return run(hook_descriptor(), v); }
Problems check_hook_audit(const json::value& v) { return run(hook_audit(), v); }
Problems check_task(const json::value& v) { return run(task(), v); }
Problems check_execution(const json::value& v) { return run(execution(), v); }

Problems check_archive_result(const json::value& v) {
  return run(result_of({req("status", run_status()), req("archivedAt", str_or_null())}), v);
}
Problems check_name_result(const json::value& v) { return run(result_of({req("name", str_or_null())}), v); }
Problems check_note_result(const json::value& v) { return run(result_of({req("note", str_or_null())}), v); }
Problems check_pinned_result(const json::value& v) { return run(result_of({req("pinned", bool_t())}), v); }
Problems check_backend_session_result(const json::value& v) {
  return run(result_of({req("backendSessionId", str_or_null())}), v);
}
Problems check_group_result(const json::value& v) {
  return run(result_of({req("runGroupId", str()), req("previousRunGroupId", str())}), v);
}
Problems check_dependencies_result(const json::value& v) {
  return run(result_of({req("dependencies", array_of(dependency_ref()))}), v);
}
Problems check_daemon_info(const json::value& v) {
  return run(object_of({req("daemonInstanceId", str()),
                        req("pid", num()),
                        req("listenUrl", str()),
                        req("version", str()),
                        req("startedAt", str())}),
             v);
}

Problems check_audit_event(const json::value& v) { return run(audit_event(), v); }
Problems check_audit_envelope(const json::value& v) { return run(audit_envelope(), v); }
Problems check_audit_history(const json::value& v) {
  return run(object_of({req("runId", str()), req("events", array_of(audit_envelope())), req("lastCursor", integer_t(0))}),
             v);
}

Problems check_workspace_entry(const json::value& v) { return run(workspace_entry(), v); }
Problems check_workspace_directory(const json::value& v) {
  return run(object_of({req("runId", str()),
                        req("cwd", str()),
                        req("path", str()),
                        req("parentPath", str_or_null()),
                        req("entries", array_of(workspace_entry())),
                        req("truncated", bool_t()),
                        req("maxEntries", integer_t(1))}),
             v);
}
Problems check_workspace_search(const json::value& v) {
  return run(object_of({req("runId", str()),
                        req("cwd", str()),
                        req("query", str()),
                        req("matches", array_of(workspace_entry())),
                        req("truncated", bool_t()),
                        req("maxResults", integer_t(1))}),
             v);
}
Problems check_workspace_file(const json::value& v) {
  return run(object_of({req("runId", str()),
                        req("cwd", str()),
                        req("path", str()),
                        req("name", str()),
                        req("size", integer_t(0)),
                        req("mtimeMs", null_or(number_min(0))),
                        req("mediaType", enum_of({"text/markdown", "text/plain"})),
                        req("markdown", bool_t()),
                        req("text", str()),
                        req("maxBytes", integer_t(1))}),
             v);
}
Problems check_workspace_diff(const json::value& v) {
  auto file = object_of({req("path", str()),
                         opt("oldPath", str()),
                         req("status", enum_of({"added", "modified", "deleted", "renamed", "copied", "untracked", "binary"})),
                         req("additions", null_or(integer_t(0))),
                         req("deletions", null_or(integer_t(0))),
                         req("binary", bool_t())});
  return run(object_of({req("runId", str()),
                        req("cwd", str()),
                        req("repoRoot", str()),
                        req("mode", enum_of({"branch", "working-tree"})),
                        req("baseRef", str_or_null()),
                        req("headRef", str_or_null()),
                        req("comparison", null_or(enum_of({"merge-base", "direct"}))),
                        req("displayRange", str()),
                        req("files", array_of(file)),
                        req("stats", object_of({req("files", integer_t(0)),
                                                req("additions", integer_t(0)),
                                                req("deletions", integer_t(0))})),
                        req("patch", str()),
                        req("truncated", bool_t()),
                        req("maxBytes", integer_t(1))}),
             v);
}

Problems check_definition_list(const json::value& v) {
  return run(object_of({req("kind", enum_of({"agent", "assignment", "launcher", "task"})),
                        req("entries", array_of(object_of({req("name", str()),
                                                           req("path", str_or_null()),
                                                           req("root", enum_of({"config", "builtin"}))}))),
                        req("warnings", array_of(str()))}),
             v);
}
Problems check_definition_detail(const json::value& v) { return run(definition_detail(), v); }

std::string describe(const Problems& problems) {
  std::string out;
  for (const auto& p : problems) out += p + "\n";
  return out;
}

}  // namespace agentry::api::compat::testing

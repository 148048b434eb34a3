// Checkers of agent-runner's other wire DTOs: audit, timeline, workspace, the run input
// surface, /app-config.json and DaemonInfo.

#include "ref_schema_checks.hpp"
#include "schema_check.hpp"

#include <boost/json/object.hpp>

#include <cctype>
#include <limits>

namespace agentry::api::compat::testing {
namespace {
namespace json = boost::json;
using namespace schema;

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

// ---- timeline ---------------------------------------------------------------------

Check timeline_attempt() {
  return object_of(
      {req("attemptNumber", integer_t(1)),
       req("sessionIndex", integer_t(0)),
       req("attemptIndexInSession", integer_t(0)),
       req("startedAt", str()),
       req("endedAt", str_or_null()),
       req("prompt", str()),
       req("transcript", str()),
       req("notices", str()),
       req("exitCode", null_or(integer_t(std::numeric_limits<std::int64_t>::min()))),
       req("timedOut", bool_t()),
       req("live", bool_t()),
       req("provenance", union_on("kind", {{"task_runner", object_of({req("kind", literal("task_runner"))})},
                                           {"backend_session", object_of({req("kind", literal("backend_session")),
                                                                          req("mode", enum_of({"bootstrap", "sync"}))})}}))});
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


}  // namespace

Problems check_daemon_info(const json::value& v) {
  return run(object_of({req("daemonInstanceId", str()),
                        req("pid", num()),
                        req("listenUrl", str()),
                        req("version", str()),
                        req("startedAt", str())}),
             v);
}

Problems check_timeline_attempt(const json::value& v) { return run(timeline_attempt(), v); }
Problems check_timeline_history(const json::value& v) {
  return run(object_of({req("runId", str()), req("attempts", array_of(timeline_attempt())), req("lastCursor", integer_t(0))}),
             v);
}
Problems check_timeline_envelope(const json::value& v) {
  // The event is open (passthrough): only its `type` is checked.
  auto event = [](const json::value& e, const std::string& path, Problems& p) {
    if (!e.is_object()) return report(p, path, "expected an object, got " + shown(e));
    const auto* type = e.as_object().if_contains("type");
    if (type == nullptr) return report(p, path + ".type", "required member is absent");
    string_t()(*type, path + ".type", p);
  };
  return run(object_of({req("runId", str()), req("cursor", integer_t(1)), req("event", event)}), v);
}

Problems check_input_surface(const json::value& v) {
  auto field = object_of({req("key", str()),
                          req("label", str()),
                          req("description", str()),
                          req("section", enum_of({"context", "task", "execution"})),
                          req("inputKind", enum_of({"string", "number", "boolean", "enum", "textarea", "launcher",
                                                    "model", "effort"})),
                          req("valueStatus", enum_of({"concrete", "unset", "delegated"})),
                          opt("value", any_t()),
                          req("editable", bool_t()),
                          req("locked", bool_t()),
                          req("hiddenWhenUnset", bool_t()),
                          req("source", enum_of({"agent", "assignment", "schema_default", "run_loop_default",
                                                 "available_override", "var_default"})),
                          opt("required", bool_t()),
                          opt("enumValues", array_of(str()))});
  return run(object_of({req("runSettings", array_of(field)), req("assignmentInputs", array_of(field))}), v);
}

Problems check_app_config(const json::value& v) {
  auto segments = [](const json::value& x, const std::string& path, Problems& p) {
    // "/" or "/seg[/seg...]" with segments of letters, digits and '-'.
    const std::string text(x.as_string());
    if (text == "/") return;
    bool ok = text.size() > 1 && text.front() == '/' && text.back() != '/';
    for (std::size_t i = 1; ok && i < text.size(); ++i) {
      const char c = text[i];
      ok = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || (c == '/' && text[i - 1] != '/');
    }
    if (!ok) report(p, path, "a base path is / or /segments of letters, digits and '-'");
  };
  return run(object_of({req("webBasePath", str())}, [segments](const json::value& x, const std::string& path, Problems& p) {
               segments(x.as_object().at("webBasePath"), path + ".webBasePath", p);
             }),
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


}  // namespace agentry::api::compat::testing

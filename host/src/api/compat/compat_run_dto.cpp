#include "api/compat/compat_run_dto.hpp"

#include "api/compat/compat_json.hpp"
#include "core/clock.hpp"

#include <boost/json/array.hpp>

#include <algorithm>
#include <array>
#include <cctype>

namespace agentry::api::compat {
namespace json = boost::json;
using namespace detail;

namespace {

constexpr std::array<std::string_view, 8> run_statuses{"initialized", "ready",   "running", "success",
                                                       "blocked",     "exhausted", "aborted", "error"};
constexpr std::array<std::string_view, 5> ended_statuses{"success", "blocked", "exhausted", "aborted", "error"};

/// The attempt range of a session: from its listed attempts (detail), else from the
/// brief's additive members (summary, W8).
void put_attempt_range(const json::object& session, json::object& out) {
  if (const auto* listed = session.if_contains("attempts"); listed && listed->is_array()) {
    std::optional<std::int64_t> first, last;
    std::int64_t count = 0;
    for (const auto& a : listed->as_array()) {
      if (!a.is_object()) continue;
      const auto number = int_at(a.as_object(), "attemptNumber");
      first = first ? std::min(*first, number) : number;
      last = last ? std::max(*last, number) : number;
      ++count;
    }
    out["firstAttemptNumber"] = first ? json::value(*first) : json::value(nullptr);
    out["lastAttemptNumber"] = last ? json::value(*last) : json::value(nullptr);
    out["attemptCount"] = count;
    return;
  }
  const auto count = int_at(session, "attemptCount");
  out["firstAttemptNumber"] = is_null_or_absent(session, "firstAttemptNumber")
                                  ? json::value(nullptr)
                                  : json::value(int_at(session, "firstAttemptNumber"));
  out["lastAttemptNumber"] = is_null_or_absent(session, "lastAttemptNumber")
                                 ? json::value(nullptr)
                                 : json::value(int_at(session, "lastAttemptNumber"));
  out["attemptCount"] = count;
}

/// The session shown as current/last: the detail lists every session (with attempts),
/// the summary only carries briefs.
json::value session_member(const json::object& run, std::string_view brief_key, bool only_live) {
  const auto* brief = run.if_contains(brief_key);
  if (brief == nullptr || !brief->is_object()) return nullptr;
  const auto max_attempts = int_at(run, "maxAttemptsPerSession");
  const auto& sessions = array_at(run, "sessions");
  if (!sessions.empty() && sessions.back().is_object()) {
    const auto& newest = sessions.back().as_object();
    if (int_at(newest, "index", -1) == int_at(brief->as_object(), "index", -2) &&
        (!only_live || is_null_or_absent(newest, "endedAt")))
      return ref_session(newest, max_attempts);
  }
  return ref_session(brief->as_object(), max_attempts);
}

json::object run_dependency_form(const json::object& d, std::string_view run_id) {
  json::object out{{"type", "run"}, {"runId", run_id}};
  out["name"] = string_or_null(d, "name");
  json::value status = nullptr;
  if (const auto* s = d.if_contains("status"); s && s->is_string()) status = ref_status(s->as_string());
  out["status"] = status;
  out["effectiveStatus"] = status;
  out["archivedAt"] = string_or_null(d, "archivedAt");
  return out;
}

}  // namespace

std::string ref_status(std::string_view native_status) {
  return one_of(run_statuses, native_status) ? std::string(native_status) : std::string("error");
}

json::value ref_exit_code(std::string_view status) {
  if (status == "success") return 0;
  if (status == "exhausted") return 1;
  if (status == "blocked") return 2;
  if (status == "aborted") return 130;
  if (status == "error") return 4;
  return nullptr;
}

std::string ref_repo_bucket(const json::value& native_repo) {
  if (!native_repo.is_string()) return "unknown";
  std::string path(native_repo.as_string());
  std::replace(path.begin(), path.end(), '\\', '/');
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const auto slash = path.rfind('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const auto first = base.find_first_not_of('-');
  base = first == std::string::npos ? std::string() : base.substr(first);
  for (auto& c : base) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return base.empty() ? "unknown" : base;
}

json::value ref_resume_source(const json::object& source) {
  const auto kind = string_at(source, "kind");
  if (kind == "child_completion") {
    const auto child = string_at(source, "childRunId");
    return json::object{{"kind", "parent_completion_notification"},
                        {"childRunId", child},
                        {"notificationId", child + ":" + std::to_string(int_at(source, "childSessionIndex"))}};
  }
  for (const auto& item : array_at(source, "sources"))
    if (item.is_object())
      if (auto found = ref_resume_source(item.as_object()); !found.is_null()) return found;
  if (const auto& queued = object_at(source, "queued"); !queued.empty()) return ref_resume_source(queued);
  return nullptr;
}

json::object ref_session(const json::object& s, std::int64_t max_attempts_per_session) {
  const auto status = ref_status(string_at(s, "status"));
  const bool ended = !is_null_or_absent(s, "endedAt");
  json::object out;
  out["sessionIndex"] = int_at(s, "index");
  out["status"] = status;
  out["startedAt"] = string_at(s, "startedAt");
  out["endedAt"] = string_or_null(s, "endedAt");
  out["exitCode"] = ended ? ref_exit_code(status) : json::value(nullptr);
  out["message"] = nonempty_or_null(s, "prompt");
  put_attempt_range(s, out);
  out["maxAttemptsPerSession"] = max_attempts_per_session;
  // Ours records the backend session a session ran with; it is both ends' value.
  out["backendSessionIdAtStart"] = string_or_null(s, "backendSessionId");
  out["backendSessionIdAtEnd"] = string_or_null(s, "backendSessionId");
  out["resumeSource"] = ref_resume_source(object_at(s, "source"));
  return out;
}

json::object ref_capabilities(const json::object& run) {
  const auto& c = object_at(run, "capabilities");
  const auto& t = object_at(c, "taskMutation");
  json::object out;
  for (const char* key : {"canArchive", "canUnarchive", "canReset", "canDelete", "canReady", "canResume", "canAbort"})
    out[key] = bool_at(c, key);
  // Their reasons are optional enums: absent when allowed (null fails their schema).
  if (!bool_at(c, "canAbort"))
    out["abortReason"] = one_of(ended_statuses, string_at(run, "status")) ? "already_terminal" : "not_active_in_daemon";
  out["canReconfigure"] = bool_at(c, "canReconfigure");
  if (!bool_at(c, "canReconfigure"))
    out["reconfigureReason"] = is_null_or_absent(run, "archivedAt") ? "not_initialized" : "archived";
  out["taskMutation"] = json::object{{"canSetStatus", bool_at(t, "canSetStatus")},
                                     {"canEditNotes", bool_at(t, "canSetNotes")},
                                     {"canAdd", bool_at(t, "canAdd")},
                                     {"canEditPending", bool_at(t, "canEditPending")},
                                     {"canDeletePending", bool_at(t, "canDeletePending")}};
  return out;
}

json::value ref_schedule(const json::object& run) {
  const auto* native = run.if_contains("schedule");
  if (native == nullptr || !native->is_object()) return nullptr;
  const auto& s = native->as_object();
  const bool enabled = bool_at(s, "enabled");
  // A one-time schedule that fired keeps its row here (nextAt null); theirs is gone by then.
  if (enabled && is_null_or_absent(s, "nextAt")) return nullptr;
  std::string run_at = string_at(s, "nextAt");
  for (const char* fallback : {"at", "lastAt", "updatedAt"})
    if (run_at.empty()) run_at = string_at(s, fallback);
  json::value recurrence = nullptr;
  if (string_at(s, "kind") == "recurring")
    recurrence = json::object{
        {"schedule", json::object{{"type", "cron"}, {"expression", string_at(s, "cron")}, {"timezone", string_at(s, "timezone")}}},
        {"mode", string_at(s, "mode")},
        {"continueOnFailure", bool_at(s, "continueOnFailure")}};
  return json::object{{"enabled", enabled}, {"runAt", run_at}, {"recurrence", std::move(recurrence)}};
}

std::string ref_schedule_state(const json::object& run, const CompatFacts& facts) {
  const auto schedule = ref_schedule(run);
  if (schedule.is_null()) return "none";
  const auto& s = schedule.as_object();
  if (!s.at("enabled").as_bool()) return "paused";
  const auto at = core::parse_iso8601(std::string_view(s.at("runAt").as_string()));
  return at && *at <= facts.now_ms ? "due" : "future";
}

json::object ref_dependency_state(const json::object& run) {
  const auto& d = object_at(run, "dependencyState");
  const auto total = int_at(d, "total");
  const auto satisfied = int_at(d, "satisfied");
  return {{"ready", satisfied >= total}, {"total", total}, {"satisfied", satisfied}, {"unsatisfied", total - satisfied}};
}

json::object ref_dependency(const json::object& d) {
  if (string_at(d, "type") == "group") {
    const auto members = int_at(d, "members");
    const auto succeeded = int_at(d, "succeeded");
    return {{"type", "group"},
            {"groupId", string_at(d, "groupId")},
            {"total", members},
            {"successful", succeeded},
            {"unsatisfied", members - succeeded},
            {"archivedExcluded", int_at(d, "archivedExcluded")},
            {"satisfied", bool_at(d, "satisfied")},
            {"missing", bool_at(d, "missing")}};
  }
  auto out = run_dependency_form(d, string_at(d, "runId"));
  out["satisfied"] = bool_at(d, "satisfied");
  out["missing"] = bool_at(d, "missing");
  return out;
}

json::object ref_dependent(const json::object& d) {
  auto out = run_dependency_form(d, string_at(d, "runId"));
  out["satisfied"] = string_at(d, "status") == "success";
  out["missing"] = false;
  if (string_at(d, "type") == "group") {
    out["via"] = "group";
    out["dependencyGroupId"] = string_at(d, "groupId");
  } else {
    out["via"] = "run";
  }
  return out;
}

json::object ref_attachment(const json::object& a) {
  const auto id = string_at(a, "attachmentId");
  const auto name = string_at(a, "name");
  return {{"id", id},
          {"name", name},
          {"mimeType", string_at(a, "contentType")},
          {"size", int_at(a, "size")},
          {"sha256", string_at(a, "sha256")},
          {"addedAt", string_at(a, "createdAt")},
          {"relativePath", id + "/" + name}};
}

json::object ref_attachment_entry(const json::object& a) {
  auto out = ref_attachment(a);
  out["ownerRunId"] = string_at(a, "runId");
  return out;
}

json::object ref_queued_message(const json::object& m) {
  return {{"id", string_at(m, "id")},
          {"text", string_at(m, "text")},
          {"createdAt", string_at(m, "createdAt")},
          {"source", ref_resume_source(object_at(m, "source"))}};
}

json::object ref_hook_descriptor(const json::object& h) {
  json::object out{{"hookId", string_at(h, "id")}, {"phase", string_at(h, "phase")}};
  const auto& run = array_at(h, "run");
  const auto builtin = string_at(h, "builtin");
  // A module hook is theirs as written (`name:` or `path:`); an executable (`run:`) hook
  // is shown as their `command` built-in with its argv.
  const auto module_source = string_at(h, "moduleSource");
  if (const auto colon = module_source.find(':'); colon != std::string::npos) {
    out["source"] = json::object{{module_source.substr(0, colon), module_source.substr(colon + 1)}};
    out["resolvedPath"] = string_or_null(h, "module");
  } else {
    out["source"] = json::object{{"builtin", builtin.empty() ? std::string("command") : builtin}};
    out["resolvedPath"] = !run.empty() && run.front().is_string() ? json::value(run.front().as_string())
                                                                   : json::value(nullptr);
  }
  const auto origin = string_at(h, "origin");
  constexpr std::string_view task_prefix = "task:";
  out["taskScopeId"] = origin.rfind(task_prefix, 0) == 0 ? json::value(origin.substr(task_prefix.size()))
                                                          : json::value(nullptr);
  const auto& when = object_at(h, "when");
  out["when"] = when.empty() ? json::value(nullptr) : json::value(when);
  json::object config = object_at(h, "with");
  if (!run.empty()) config["argv"] = run;
  out["config"] = std::move(config);
  return out;
}

json::object ref_hook_audit(const json::object& a) {
  const auto ended = string_at(a, "createdAt");
  std::string started = ended;
  if (auto at = core::parse_iso8601(ended)) started = core::format_iso8601(*at - int_at(a, "durationMs"));
  return {{"phase", string_at(a, "phase")},
          {"hookId", string_at(a, "hookId")},
          {"startedAt", started},
          {"endedAt", ended},
          {"outcome", string_at(a, "outcome")},
          {"sessionIndex", nullptr},
          {"attemptNumber", nullptr},
          {"taskId", nullptr},
          {"summary", string_or_null(a, "message")}};
}

json::object ref_task(const json::object& t) {
  return {{"id", string_at(t, "id")},
          {"title", string_at(t, "title")},
          {"body", string_at(t, "body")},
          {"status", string_at(t, "status")},
          {"notes", string_at(t, "notes")}};
}

json::object ref_execution(const CompatFacts& facts) {
  return {{"hostMode", "daemon"},
          {"controller", json::object{{"kind", "daemon"}, {"daemonInstanceId", facts.daemon_instance_id}}}};
}

json::object ref_summary(const json::object& n, const CompatFacts& facts) {
  const auto status = ref_status(string_at(n, "status"));
  const auto& counts = object_at(n, "taskCounts");
  json::object s;
  s["runId"] = string_at(n, "runId");
  s["parentRunId"] = string_or_null(n, "parentRunId");
  s["runGroupId"] = string_at(n, "runGroupId");
  const auto* repo = n.if_contains("repo");
  s["repo"] = ref_repo_bucket(repo ? *repo : json::value(nullptr));
  s["status"] = status;
  s["effectiveStatus"] = status;  // W2: our passive runs already follow their tasks
  s["archivedAt"] = string_or_null(n, "archivedAt");
  s["pinned"] = bool_at(n, "pinned");
  s["notePresent"] = bool_at(n, "notePresent");
  s["agentName"] = string_at(n, "agent");
  s["name"] = string_or_null(n, "name");
  s["assignmentName"] = string_or_null(n, "assignment");
  s["backend"] = string_at(n, "backend");
  s["model"] = string_or_null(n, "model");
  s["cwd"] = string_at(n, "cwd");
  s["startedAt"] = string_at(n, "createdAt");  // W3: theirs is the creation time, never null
  s["updatedAt"] = string_at(n, "updatedAt");
  s["endedAt"] = string_or_null(n, "finishedAt");
  s["totalAttemptCount"] = int_at(n, "totalAttemptCount");
  s["totalSessionCount"] = int_at(n, "totalSessionCount");
  s["maxAttemptsPerSession"] = int_at(n, "maxAttemptsPerSession");
  s["currentSession"] = session_member(n, "currentSession", true);
  s["lastSession"] = session_member(n, "lastSession", false);
  s["tasksCompleted"] = int_at(counts, "completed");
  s["tasksTotal"] = int_at(counts, "total");
  const auto* attachments = n.if_contains("attachments");
  s["attachmentCount"] = n.contains("attachmentCount") ? int_at(n, "attachmentCount")
                         : attachments && attachments->is_array()
                             ? static_cast<std::int64_t>(attachments->as_array().size())
                             : std::int64_t{0};
  s["queuedResumeMessageCount"] = int_at(n, "queuedMessageCount");
  if (n.contains("hookCount")) s["hookCount"] = int_at(n, "hookCount");
  s["dependencyState"] = ref_dependency_state(n);
  s["schedule"] = ref_schedule(n);
  s["scheduleState"] = ref_schedule_state(n, facts);
  const auto& active = object_at(n, "activeTask");
  s["activeTask"] = active.empty() ? json::value(nullptr)
                                   : json::value(json::object{{"id", string_at(active, "id")},
                                                              {"title", string_at(active, "title")}});
  s["execution"] = ref_execution(facts);
  s["capabilities"] = ref_capabilities(n);
  return s;
}

json::object ref_detail(const json::object& n, const CompatFacts& facts) {
  auto d = ref_summary(n, facts);
  // The summary's own members their detail schema does not list are harmless extras,
  // but dropping them keeps the two DTOs apart.
  for (const char* key : {"notePresent", "agentName", "assignmentName", "attachmentCount", "queuedResumeMessageCount",
                          "hookCount", "dependencyState"})
    d.erase(key);
  const auto status = std::string(d["status"].as_string());
  const auto run_id = std::string(d["runId"].as_string());
  const auto& frozen = object_at(n, "frozen");
  d["isLive"] = status == "running" && !is_null_or_absent(n, "currentSession");
  d["workspaceDir"] = (facts.workspace_root / run_id).string();
  d["agent"] = json::object{{"name", string_at(n, "agent")}, {"sourcePath", nonempty_or_null(frozen, "agentSourcePath")}};
  const auto assignment = string_at(n, "assignment");
  d["assignment"] = assignment.empty() ? json::value(nullptr)
                                       : json::value(json::object{{"name", assignment},
                                                                  {"sourcePath", string_at(frozen, "assignmentSourcePath")}});
  d["effort"] = nonempty_or_null(frozen, "effort");
  d["note"] = string_or_null(n, "note");
  d["backendSessionId"] = string_or_null(n, "backendSessionId");
  d["unrestricted"] = bool_at(frozen, "unrestricted");
  d["timeoutSec"] = int_at(frozen, "timeoutSec");
  d["exitCode"] = ref_exit_code(status);
  const auto max_attempts = int_at(n, "maxAttemptsPerSession");
  json::array sessions;
  for (const auto& s : array_at(n, "sessions"))
    if (s.is_object()) sessions.push_back(ref_session(s.as_object(), max_attempts));
  d["sessions"] = std::move(sessions);
  json::array attachments;
  for (const auto& a : array_at(n, "attachments"))
    if (a.is_object()) attachments.push_back(ref_attachment(a.as_object()));
  d["attachments"] = std::move(attachments);
  json::array queued;
  for (const auto& m : array_at(n, "queuedResumeMessages"))
    if (m.is_object()) queued.push_back(ref_queued_message(m.as_object()));
  d["queuedResumeMessages"] = std::move(queued);
  json::array hooks;
  for (const auto& h : array_at(n, "resolvedHooks"))
    if (h.is_object()) hooks.push_back(ref_hook_descriptor(h.as_object()));
  d["resolvedHooks"] = std::move(hooks);
  // W23: the state the run's hooks keep (`mutate.state`); ours names it hookData, and our
  // hookState is a per-hook summary their schema has no place for.
  d["hookState"] = object_at(n, "hookData");
  json::array audits;
  for (const auto& a : array_at(n, "hookAudits"))
    if (a.is_object()) audits.push_back(ref_hook_audit(a.as_object()));
  d["hookAudits"] = std::move(audits);
  json::array dependencies;
  for (const auto& x : array_at(n, "dependencies"))
    if (x.is_object()) dependencies.push_back(ref_dependency(x.as_object()));
  d["dependencies"] = std::move(dependencies);
  json::array dependents;
  for (const auto& x : array_at(n, "dependents"))
    if (x.is_object()) dependents.push_back(ref_dependent(x.as_object()));
  d["dependents"] = std::move(dependents);
  json::array tasks;
  for (const auto& t : array_at(n, "tasks"))
    if (t.is_object()) tasks.push_back(ref_task(t.as_object()));
  d["tasks"] = std::move(tasks);
  d["message"] = nonempty_or_null(n, "message");
  const bool not_started = (status == "initialized" || status == "ready") && int_at(n, "totalAttemptCount") == 0;
  d["pendingPrompt"] = not_started ? nonempty_or_null(n, "brief") : json::value(nullptr);
  d["callerInstructions"] = nonempty_or_null(n, "callerInstructions");
  json::array locked;
  for (const auto& f : array_at(n, "lockedFields"))
    if (f.is_string() && one_of(lockable_fields, f.as_string())) locked.push_back(f);
  d["lockedFields"] = std::move(locked);
  d["runtimeVars"] = object_at(n, "runtimeVars");
  d["executionEnvironment"] = nullptr;  // W27: ours cannot be expressed in their container shape
  return d;
}

}  // namespace agentry::api::compat

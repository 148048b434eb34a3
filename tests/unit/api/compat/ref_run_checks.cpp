// Checkers of agent-runner's run DTOs: RunSummary, RunDetail, their parts, the mutation
// results and the stream events that carry them.

#include "ref_schema_checks.hpp"
#include "schema_check.hpp"

#include <boost/json/object.hpp>

namespace agentry::api::compat::testing {
namespace {
namespace json = boost::json;
using namespace schema;

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

Problems check_queue_message_result(const json::value& v) {
  return run(object_of({req("run", run_detail()), req("queuedResumeMessage", queued_message())}), v);
}
Problems check_remove_queued_message_result(const json::value& v) {
  return run(object_of({req("run", run_detail()), req("removedMessageId", str())}), v);
}
Problems check_attachment_remove_result(const json::value& v) {
  return run(object_of({req("runId", str()), req("attachmentId", str()), req("changed", bool_t())}), v);
}
Problems check_delete_result(const json::value& v) { return run(object_of({req("runId", str())}), v); }
Problems check_task_delete_result(const json::value& v) {
  return run(object_of({req("runId", str()), req("taskId", str()), req("deleted", literal_bool(true)), req("updatedAt", str())}),
             v);
}

Problems check_summary_stream_event(const json::value& v) {
  return run(union_on("type", {{"summary_upsert", object_of({req("type", literal("summary_upsert")), req("summary", run_summary())})},
                               {"summary_removed", object_of({req("type", literal("summary_removed")), req("runId", str())})}}),
             v);
}
Problems check_detail_stream_event(const json::value& v) {
  return run(object_of({req("type", literal("detail_updated")), req("detail", run_detail())}), v);
}

}  // namespace agentry::api::compat::testing

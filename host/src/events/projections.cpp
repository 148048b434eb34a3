#include "events/projections.hpp"
#include "events/schedule_projection.hpp"

#include "core/json_strings.hpp"
#include "events/dependency_projection.hpp"

#include <boost/json/array.hpp>

#include <algorithm>

namespace agentry::events {
namespace json = boost::json;
namespace {

json::value nonempty_or_null(const std::string& s) { return s.empty() ? json::value(nullptr) : json::value(s); }

json::array strings(const std::vector<std::string>& items) {
  json::array out;
  for (const auto& s : items) out.emplace_back(s);
  return out;
}

json::object session_brief(const core::Session& s, json::storage_ptr sp = {}) {
  return {{{"index", s.index},
          {"status", s.status},
          {"startedAt", s.started_at},
          {"endedAt", core::text_or_null(s.ended_at)},
          {"endReason", nonempty_or_null(s.end_reason)},
          {"backendSessionId", core::text_or_null(s.backend_session_id)},
          // The attempts it holds, numbered across the run (null without any).
          {"firstAttemptNumber", s.attempt_count > 0 ? json::value(s.first_attempt_number) : json::value(nullptr)},
          {"lastAttemptNumber", s.attempt_count > 0 ? json::value(s.last_attempt_number) : json::value(nullptr)},
          {"attemptCount", s.attempt_count}},
          std::move(sp)};
}

json::object task_counts(const core::TaskTally& t, json::storage_ptr sp) {
  return {{{"total", t.total},
           {"pending", t.pending},
           {"inProgress", t.in_progress},
           {"completed", t.completed},
           {"blocked", t.blocked}},
          std::move(sp)};
}

bool is_redacted(const json::object& sources, std::string_view name) {
  const auto* source = sources.if_contains(name);
  if (source == nullptr || !source->is_object()) return false;
  const auto* redacted = source->as_object().if_contains("redacted");
  return redacted != nullptr && redacted->is_bool() && redacted->as_bool();
}

/// Shorter values are hidden in `vars` but not searched for in text, where they would
/// match ordinary words ("main", "info") and garble it.
constexpr std::size_t min_redacted_text = 8;

/// The redacted string values worth searching for, longest first (so that a value that
/// contains another is replaced whole).
std::vector<std::string> secret_texts(const core::FrozenInputs& f) {
  std::vector<std::string> out;
  for (const auto& [name, value] : f.vars)
    if (value.is_string() && value.get_string().size() >= min_redacted_text && is_redacted(f.var_sources, name))
      out.emplace_back(value.get_string());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  return out;
}

std::string replace_all(std::string text, const std::vector<std::string>& secrets) {
  for (const auto& secret : secrets) {
    for (std::size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at + 10))
      text.replace(at, secret.size(), "[redacted]");
  }
  return text;
}

}  // namespace

json::object displayed_vars(const core::FrozenInputs& f) {
  json::object out;
  for (const auto& [name, value] : f.vars) {
    if (!is_redacted(f.var_sources, name)) {
      out[name] = value;
      continue;
    }
    const auto& source = f.var_sources.at(name).as_object();
    json::object shown{{"redacted", true}};
    for (const char* key : {"source", "envName", "inheritedFromRunId"})
      if (const auto* v = source.if_contains(key)) shown[key] = *v;
    out[name] = std::move(shown);
  }
  return out;
}

std::string redact_text(const core::FrozenInputs& f, std::string text) {
  return replace_all(std::move(text), secret_texts(f));
}

json::object capabilities_json(const core::RunCapabilities& c, json::storage_ptr sp) {
  const auto& t = c.task_mutation;
  return {{
      {"canArchive", c.can_archive},
      {"canUnarchive", c.can_unarchive},
      {"canReset", c.can_reset},
      {"canDelete", c.can_delete},
      {"canReady", c.can_ready},
      {"canResume", c.can_resume},
      {"canAbort", c.can_abort},
      {"abortReason", core::text_or_null(c.abort_reason)},
      {"canReconfigure", c.can_reconfigure},
      {"reconfigureReason", core::text_or_null(c.reconfigure_reason)},
      {"canSetBackendSession", c.can_set_backend_session},
      {"canQueueMessage", c.can_queue_message},
      {"canRemoveQueuedMessage", c.can_remove_queued_message},
      {"canEditDependencies", c.can_edit_dependencies},
      {"taskMutation",
       {{"canSetStatus", t.can_set_status},
        {"canSetNotes", t.can_set_notes},
        {"canAppendNotes", t.can_append_notes},
        {"canAdd", t.can_add},
        {"canEditPending", t.can_edit_pending},
        {"canDeletePending", t.can_delete_pending}}},
  }, std::move(sp)};
}

json::object task_json(const core::Task& t) {
  return {{"runId", t.run_id},   {"id", t.id},           {"title", t.title},
          {"body", t.body},      {"status", core::to_string(t.status)},
          {"notes", t.notes},    {"source", t.source},   {"position", t.position},
          {"createdAt", t.created_at}, {"updatedAt", t.updated_at}};
}

json::object session_json(const core::Session& s, const std::vector<core::Attempt>& attempts) {
  json::object out = session_brief(s);
  out["endedBy"] = nonempty_or_null(s.ended_by);
  out["prompt"] = s.prompt;  // what the session was started with: the brief, a follow-up, queued messages
  // What opened it when the daemon did on its own (a child's completion).
  if (!s.source.empty()) out["source"] = s.source;
  json::array list;
  for (const auto& a : attempts) {
    if (a.session_index != s.index) continue;
    list.push_back(json::object{{"attemptNumber", a.number},
                                {"sessionIndex", a.session_index},
                                {"attemptIndexInSession", a.index_in_session},
                                {"startedAt", a.started_at},
                                {"endedAt", core::text_or_null(a.ended_at)},
                                {"outcome", nonempty_or_null(a.outcome)}});
  }
  out["attempts"] = std::move(list);
  return out;
}

json::object audit_event_json(const core::AuditEvent& e) {
  return {{"runId", e.run_id}, {"cursor", e.cursor}, {"type", e.type},
          {"actor", e.actor},  {"at", e.at},         {"data", e.data}};
}

json::object timeline_event_json(const core::TimelineEvent& e) {
  json::object out{{"runId", e.run_id}, {"cursor", e.cursor}, {"kind", e.kind}, {"at", e.at},
                   {"payload", e.payload}};
  out["attemptNumber"] = e.attempt_number ? json::value(*e.attempt_number) : json::value(nullptr);
  return out;
}

json::object pending_approval_json(const core::PendingApproval& a) {
  return {{"approvalId", a.approval_id},
          {"kind", a.kind},
          {"summary", a.summary},
          {"details", a.details},
          {"requestedAt", a.requested_at}};
}

json::object queued_message_json(const core::QueuedMessage& m) {
  return {{"id", m.id}, {"runId", m.run_id}, {"text", m.text}, {"createdAt", m.created_at}, {"source", m.source}};
}

core::Session with_attempt_range(core::Session session, const std::vector<core::Attempt>& attempts) {
  session.first_attempt_number = session.last_attempt_number = session.attempt_count = 0;
  for (const auto& a : attempts) {
    if (a.session_index != session.index) continue;
    if (session.attempt_count == 0 || a.number < session.first_attempt_number) session.first_attempt_number = a.number;
    session.last_attempt_number = std::max(session.last_attempt_number, a.number);
    ++session.attempt_count;
  }
  return session;
}

json::object run_summary(const core::Run& run, const core::TaskTally& tasks,
                         const std::optional<core::Session>& latest, json::storage_ptr sp) {
  const auto& f = run.frozen;
  json::object s(sp);
  s.reserve(56);  // the ~41 fields below and the ~12 run_detail adds: no rehash while they fill it
  s["runId"] = run.id;
  s["name"] = core::text_or_null(run.name);
  s["status"] = core::to_string(run.status);
  s["statusReason"] = nonempty_or_null(run.status_reason);
  s["agent"] = f.agent_name;
  s["assignment"] = nonempty_or_null(f.assignment_name);
  s["backend"] = f.backend;
  s["model"] = nonempty_or_null(f.model);
  s["cwd"] = run.cwd;
  s["repo"] = nonempty_or_null(run.repo_root);
  s["runGroupId"] = run.run_group_id;
  s["parentRunId"] = core::text_or_null(run.parent_run_id);
  s["pinned"] = run.pinned;
  s["notePresent"] = run.note.has_value() && !run.note->empty();
  s["archived"] = run.archived;
  s["archivedAt"] = core::text_or_null(run.archived_at);
  s["createdAt"] = run.created_at;
  s["updatedAt"] = run.updated_at;
  s["startedAt"] = core::text_or_null(run.started_at);
  s["finishedAt"] = core::text_or_null(run.finished_at);
  s["backendSessionId"] = core::text_or_null(run.backend_session_id);
  s["taskCounts"] = task_counts(tasks, sp);
  s["activeTask"] = tasks.active ? json::value(json::object{{"id", tasks.active->first}, {"title", tasks.active->second}})
                                 : json::value(nullptr);
  s["totalAttemptCount"] = run.attempt_count;
  s["totalSessionCount"] = run.session_count;
  s["maxAttemptsPerSession"] = f.max_attempts_per_session;
  s["queuedMessageCount"] = run.queued_message_count;
  s["attachmentCount"] = run.attachment_count;
  s["pendingApprovalCount"] = run.pending_approval_count;
  const bool live = latest && !latest->ended_at;
  json::value brief = latest ? json::value(session_brief(*latest, sp)) : json::value(nullptr, sp);
  s["currentSession"] = live ? brief : json::value(nullptr);
  s["lastSession"] = std::move(brief);
  s["dependencyState"] = dependency_state_json(run);
  s["hookCount"] = static_cast<std::int64_t>(f.hooks.size());
  s["diffstat"] = run.diffstat ? json::value(json::object{{"files", run.diffstat->files},
                                                          {"additions", run.diffstat->additions},
                                                          {"deletions", run.diffstat->deletions},
                                                          {"updatedAt", run.diffstat->updated_at}})
                               : json::value(nullptr);
  s["schedule"] = schedule_json(run);
  s["scheduleState"] = schedule_state_json(run);
  s["revision"] = run.revision;
  // Cost from the current price table, at read time: a price change shows at once.
  std::vector<std::string> usage_warnings;
  auto usage = core::usage_json(run.usage, *core::current_prices(), &usage_warnings);
  if (!usage_warnings.empty()) usage["warnings"] = strings(usage_warnings);
  s["usage"] = std::move(usage);
  if (run.damaged) s["damaged"] = boost::json::object{{"reason", *run.damaged}};
  s["capabilities"] = capabilities_json(core::capabilities(core::facts_of(run)), sp);
  return s;
}

json::object attachment_json(const core::Attachment& a) {
  return {{"attachmentId", a.id},   {"runId", a.run_id},         {"runGroupId", a.run_group_id},
          {"name", a.name},         {"size", a.size},            {"sha256", a.sha256},
          {"contentType", a.content_type}, {"createdAt", a.created_at}};
}

json::object run_detail(const RunDetailInputs& in, json::storage_ptr sp) {
  const auto& run = in.run;
  const auto& f = run.frozen;
  std::optional<core::Session> latest;
  if (!in.sessions.empty()) latest = with_attempt_range(in.sessions.back(), in.attempts);
  json::object d = run_summary(run, core::tally(in.tasks), latest, std::move(sp));
  d["note"] = core::text_or_null(run.note);
  // Values from the environment are often secrets: hidden in vars, and cut out of the
  // texts rendered with them.
  const auto secrets = secret_texts(f);
  d["message"] = replace_all(f.message, secrets);
  d["brief"] = replace_all(f.brief, secrets);
  d["vars"] = displayed_vars(f);
  d["runtimeVars"] = d["vars"];
  d["lockedFields"] = strings(f.locked_fields);
  d["callerInstructions"] = nonempty_or_null(f.caller_instructions);
  json::object frozen{{"agentSourcePath", f.agent_source_path},
                      {"assignmentSourcePath", nonempty_or_null(f.assignment_source_path)},
                      {"effort", nonempty_or_null(f.effort)},
                      {"timeoutSec", f.timeout_sec},
                      {"budget", f.budget ? json::value(core::budget_json(*f.budget)) : json::value(nullptr)},
                      {"unrestricted", f.unrestricted},
                      {"backendConfig", f.backend_config},
                      {"extraArgs", strings(f.extra_args)}};
  if (f.launcher)
    frozen["launcher"] = json::object{{"name", f.launcher->name}, {"command", strings(f.launcher->command)},
                                      {"env", f.launcher->env}};
  else
    frozen["launcher"] = nullptr;
  d["environment"] = f.environment ? json::value(json::object{{"name", f.environment->name},
                                                              {"kind", f.environment->kind},
                                                              {"network", f.environment->network}})
                                   : json::value(nullptr);
  // The run's notification targets, as views may show them: never a secret or a URL's query.
  json::array notify;
  for (const auto& t : f.notify)
    notify.push_back(json::object{
        {"kind", t.kind == core::NotifyTarget::Kind::webhook ? "webhook" : "command"},
        {"target", core::redacted_target(t)},
        {"events", strings(t.events)},
        {"signed", !t.secret.empty() || !t.secret_env.empty()},
        {"origin", t.origin}});
  frozen["notify"] = std::move(notify);
  d["frozen"] = std::move(frozen);
  json::array tasks;
  for (const auto& t : in.tasks) {
    auto task = task_json(t);
    if (!secrets.empty()) {
      task["title"] = replace_all(t.title, secrets);
      task["body"] = replace_all(t.body, secrets);
    }
    tasks.push_back(std::move(task));
  }
  d["tasks"] = std::move(tasks);
  json::array sessions;
  for (const auto& s : in.sessions) {
    auto session = session_json(s, in.attempts);
    if (!secrets.empty()) session["prompt"] = replace_all(s.prompt, secrets);
    sessions.push_back(std::move(session));
  }
  d["sessions"] = std::move(sessions);
  d["backendSession"] = run.backend_session_id ? json::value(json::object{{"id", *run.backend_session_id}})
                                               : json::value(nullptr);
  d["dependencies"] = dependencies_json(run);
  d["dependents"] = dependents_json(run);
  json::array attachments;
  for (const auto& a : run.attachments) attachments.push_back(attachment_json(a));
  d["attachments"] = std::move(attachments);
  json::array queued;
  for (const auto& m : run.queued_messages) queued.push_back(queued_message_json(m));
  d["queuedResumeMessages"] = std::move(queued);
  json::array approvals;
  for (const auto& a : run.pending_approvals) approvals.push_back(pending_approval_json(a));
  d["pendingApprovals"] = std::move(approvals);
  d["owner"] = run.owner ? json::value(json::object{{"daemonId", run.owner->daemon_id},
                                                    {"name", run.owner->name},
                                                    {"epoch", run.owner->epoch},
                                                    {"leaseExpiresAt", run.owner->lease_expires_at}})
                         : json::value(nullptr);
  d["notifyParentOnComplete"] = f.notify_parent_on_complete;
  d["resolvedHooks"] = core::to_json(f.hooks);
  // Imported runs only: hooks left behind, the reason the run cannot start again.
  if (!f.hooks_not_imported.empty()) d["hooksNotImported"] = core::to_json_strings(f.hooks_not_imported);
  // Each hook's last execution: { lastOutcome, lastMessage, lastRunAt, runs } (runs
  // counted over the audits kept, hookAudits' window).
  json::object hook_state;
  json::array hook_audits;
  for (const auto& a : run.hook_audits) {
    hook_audits.push_back(core::to_json(a));
    auto& entry = hook_state[a.hook_id];
    std::int64_t runs = entry.is_object() ? entry.as_object().at("runs").as_int64() : 0;
    entry = json::object{{"lastOutcome", a.outcome},
                         {"lastMessage", a.message.empty() ? json::value(nullptr) : json::value(a.message)},
                         {"lastPhase", core::to_string(a.phase)},
                         {"lastRunAt", a.created_at},
                         {"runs", runs + 1}};
  }
  d["hookState"] = std::move(hook_state);
  d["hookAudits"] = std::move(hook_audits);
  d["hookData"] = run.hook_data;
  if (const auto& n = run.parent_notification)
    d["parentNotification"] = json::object{{"parentRunId", n->parent_run_id},
                                           {"sessionIndex", n->child_session_index},
                                           {"state", n->state},
                                           {"reason", nonempty_or_null(n->reason)},
                                           {"delivery", nonempty_or_null(n->delivery)},
                                           {"createdAt", n->created_at},
                                           {"updatedAt", n->updated_at},
                                           {"deliveredAt", core::text_or_null(n->delivered_at)}};
  else
    d["parentNotification"] = nullptr;
  json::array notifications;
  for (const auto& n : run.notifications) {
    json::object o{{"id", n.id},
                   {"event", n.event},
                   {"target", n.target},
                   {"idempotencyKey", n.idempotency_key},
                   {"state", n.state},
                   {"attempts", n.attempts},
                   {"lastError", n.last_error.empty() ? json::value(nullptr) : json::value(n.last_error)},
                   {"createdAt", n.created_at},
                   {"deliveredAt", n.delivered_at ? json::value(*n.delivered_at) : json::value(nullptr)}};
    if (n.next_attempt_at) o["nextAttemptAt"] = *n.next_attempt_at;
    notifications.push_back(std::move(o));
  }
  d["notifications"] = std::move(notifications);
  return d;
}

}  // namespace agentry::events

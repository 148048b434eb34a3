#include "store_import/agent_runner/history_mapping.hpp"

#include "core/json_strings.hpp"
#include "store_import/agent_runner/json_fields.hpp"

#include <algorithm>
#include <map>

namespace agentry::store_import::agent_runner {
namespace json = boost::json;

namespace {

[[noreturn]] void refuse(const Manifest& m, const std::string& field, const std::string& reason) {
  throw FieldError(m.file.string(), field, reason);
}

core::TimelineEvent event(const std::string& run_id, const char* kind, std::optional<int> attempt, const std::string& at,
                          json::object payload) {
  core::TimelineEvent e;
  e.run_id = run_id;
  e.kind = kind;
  e.attempt_number = attempt;
  e.at = at;
  e.payload = std::move(payload);
  return e;
}

// An attempt's outcome in our words (plugin-api's FINISHED: success | error | interrupted).
std::pair<std::string, std::string> outcome_of(const ManifestAttempt& a) {
  if (a.signal) return {"interrupted", "ended by signal " + *a.signal};
  if (a.timed_out) return {"error", "timed out"};
  if (a.exit_code && *a.exit_code == 0) return {"success", ""};
  if (a.exit_code) return {"error", "exit code " + std::to_string(*a.exit_code)};
  return {"error", "ended without an exit code"};
}

void attempt_events(const RunSources& s, const ManifestAttempt& a, ImportedRun& out) {
  const auto& run_id = s.manifest.run_id;
  out.timeline.push_back(event(run_id, "attempt.started", a.number, a.started_at,
                               {{"attemptNumber", a.number},
                                {"sessionIndex", a.session_index},
                                {"attemptIndexInSession", a.index_in_session},
                                {"backend", s.manifest.backend},
                                {"prompt", a.prompt},
                                {"imported", true}}));
  if (a.transcript && !a.transcript->empty())
    out.timeline.push_back(event(run_id, "message.completed", a.number, a.ended_at,
                                 {{"role", "assistant"}, {"text", *a.transcript}}));
  if (auto it = s.stderr_by_attempt.find(a.number); it != s.stderr_by_attempt.end() && !it->second.empty())
    out.timeline.push_back(event(run_id, "notice", a.number, a.ended_at,
                                 {{"level", "warning"}, {"source", "stderr"}, {"message", it->second}}));
  const auto [outcome, message] = outcome_of(a);
  json::object finished{{"outcome", outcome}, {"timedOut", a.timed_out}};
  if (!message.empty()) finished["message"] = message;
  if (a.exit_code) finished["exitCode"] = *a.exit_code;
  if (a.signal) finished["signal"] = *a.signal;
  out.timeline.push_back(event(run_id, "attempt.finished", a.number, a.ended_at, std::move(finished)));
}

core::Session session_of(const Manifest& m, const ManifestSession& s, std::size_t i, bool close_as_error) {
  core::Session session;
  session.run_id = m.run_id;
  session.index = s.index;
  session.started_at = s.started_at;
  session.ended_at = s.ended_at;
  session.backend_session_id = s.backend_session_id_at_end;
  session.prompt = s.message.value_or("");
  const auto status = core::parse_run_status(s.status);
  if (!status) refuse(m, "sessions[" + std::to_string(i) + "].status", "is not a run status ('" + s.status + "')");
  session.status = s.status;
  // Opened by a child's completion: said the way agentry's own such sessions say it.
  if (s.resume_source) {
    session.source = {{"kind", "child_completion"}};
    for (const char* key : {"childRunId", "notificationId"})
      if (const auto* v = s.resume_source->if_contains(key)) session.source[key] = *v;
  }
  if (s.ended_at) {
    session.ended_by = *status == core::RunStatus::aborted ? "user" : "agent";
  } else if (close_as_error) {
    session.status = "error";
    session.ended_at = m.updated_at;
    session.end_reason = imported_while_running;
    session.ended_by = "restart";
  } else {
    refuse(m, "sessions[" + std::to_string(i) + "].endedAt", "is null but the run is " + m.status);
  }
  return session;
}

}  // namespace

void map_history(const RunSources& s, ImportedRun& out) {
  const auto& m = s.manifest;
  std::map<int, std::size_t> session_at;  // index -> position in m.sessions
  for (std::size_t i = 0; i < m.sessions.size(); ++i)
    if (!session_at.emplace(m.sessions[i].index, i).second)
      refuse(m, "sessions[" + std::to_string(i) + "].sessionIndex", "repeats " + std::to_string(m.sessions[i].index));
  std::map<int, std::vector<const ManifestAttempt*>> attempts_of;
  int last_attempt = 0;
  for (std::size_t i = 0; i < m.attempts.size(); ++i) {
    const auto& a = m.attempts[i];
    if (!session_at.contains(a.session_index))
      refuse(m, "attemptRecords[" + std::to_string(i) + "].sessionIndex", "names no session (" + std::to_string(a.session_index) + ")");
    if (a.number < 1) refuse(m, "attemptRecords[" + std::to_string(i) + "].attemptNumber", "must be at least 1");
    attempts_of[a.session_index].push_back(&a);
    last_attempt = std::max(last_attempt, a.number);
  }
  std::vector<int> seen_numbers;
  const bool was_running = !out.status_there.empty();
  for (const auto& [index, position] : session_at) {
    const auto& record = m.sessions[position];
    const bool open_and_last = !record.ended_at && index == session_at.rbegin()->first;
    auto session = session_of(m, record, position, was_running && open_and_last);
    auto& attempts = attempts_of[index];
    std::sort(attempts.begin(), attempts.end(), [](auto* a, auto* b) { return a->number < b->number; });
    for (const auto* a : attempts) {
      if (std::find(seen_numbers.begin(), seen_numbers.end(), a->number) != seen_numbers.end())
        refuse(m, "attemptRecords", "repeat attemptNumber " + std::to_string(a->number));
      seen_numbers.push_back(a->number);
      core::Attempt attempt;
      attempt.run_id = m.run_id;
      attempt.number = a->number;
      attempt.session_index = a->session_index;
      attempt.index_in_session = a->index_in_session;
      attempt.started_at = a->started_at;
      attempt.ended_at = a->ended_at;
      attempt.outcome = outcome_of(*a).first;
      out.attempts.push_back(std::move(attempt));
      attempt_events(s, *a, out);
    }
    if (session.ended_at) {
      json::object finished{{"status", session.status}, {"reason", session.end_reason}};
      out.timeline.push_back(event(m.run_id, "run.finished", std::nullopt, *session.ended_at, std::move(finished)));
    }
    out.sessions.push_back(std::move(session));
  }
  out.run.session_count = static_cast<int>(out.sessions.size());
  out.run.attempt_count = last_attempt;
}

void map_audit(const RunSources& s, ImportedRun& out, const std::string& now) {
  static const std::map<std::string, std::string> actors = {
      {"system", "engine"}, {"cli", "cli"}, {"daemon", "daemon"}, {"task_command", "agent"}};
  for (const auto& r : s.audit) {
    core::AuditEvent e;
    e.run_id = s.manifest.run_id;
    e.type = r.event_type;
    e.actor = actors.at(r.source);
    e.at = r.recorded_at;
    e.data = r.fields;
    e.data["importedFrom"] = "agent-runner";
    e.data["cursorThere"] = r.cursor;
    e.data["hostMode"] = r.host_mode;
    if (r.controller_instance_id) e.data["controllerInstanceId"] = *r.controller_instance_id;
    if (r.session_index) e.data["sessionIndex"] = *r.session_index;
    if (r.attempt_number) e.data["attemptNumber"] = *r.attempt_number;
    out.audit.push_back(std::move(e));
  }
  core::AuditEvent imported;
  imported.run_id = s.manifest.run_id;
  imported.type = "run.imported";
  imported.actor = "cli";
  imported.at = now;
  imported.data = {{"importedFrom", out.imported_from},
                   {"notCarried", core::to_json_strings(out.not_carried)},
                   {"hooksNotImported", core::to_json_strings(out.hooks_left_out)}};
  if (!out.status_there.empty()) {
    imported.data["statusThere"] = out.status_there;
    imported.data["reason"] = imported_while_running;
  }
  out.audit.push_back(std::move(imported));
}

}  // namespace agentry::store_import::agent_runner

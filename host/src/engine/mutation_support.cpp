#include "engine/mutation_support.hpp"

#include "core/clock.hpp"
#include "engine/hooks/hook_runner.hpp"
#include "engine/leases/run_leases.hpp"
#include "engine/parent_completion/parent_notifications.hpp"
#include "engine/outbox/notification_outbox.hpp"
#include "engine/queued_delivery.hpp"
#include "store/approval_repository.hpp"
#include "store/event_repository.hpp"
#include "store/lease_repository.hpp"
#include "store/run_repository.hpp"
#include "store/session_repository.hpp"
#include "store/task_repository.hpp"
#include "store/transaction.hpp"

namespace agentry::engine::detail {

core::Result<core::Run> load_run(store::Transaction& c, const std::string& run_id) {
  auto run = c.runs().get(run_id);
  if (!run) return core::fail(core::ErrorCode::not_found, "no run with id '" + run_id + "'", {{"runId", run_id}});
  return std::move(*run);
}

core::Result<void> check_allowed(core::Operation op, const core::Run& run, std::string_view operation_name) {
  if (auto why = core::refusal(op, core::facts_of(run))) {
    return core::fail(core::ErrorCode::conflict, "cannot " + std::string(operation_name) + " run " + run.id + ": " + *why,
                      {{"runId", run.id}, {"operation", operation_name}, {"status", core::to_string(run.status)},
                       {"archived", run.archived}});
  }
  return core::ok();
}

void touch(core::Run& run) {
  run.updated_at = core::now_iso8601();
  run.revision += 1;
}

void append_audit(store::Transaction& c, const std::string& run_id, std::string type, const Actor& actor,
                  boost::json::object data) {
  core::AuditEvent event;
  event.run_id = run_id;
  event.type = std::move(type);
  event.actor = actor.name;
  event.at = core::now_iso8601();
  event.data = std::move(data);
  c.audit().append(event);
}

void save_with_audit(store::Transaction& c, core::Run& run, std::string type, const Actor& actor,
                     boost::json::object data) {
  touch(run);
  c.runs().update(run);
  append_audit(c, run.id, std::move(type), actor, std::move(data));
}

void open_session(store::Transaction& c, core::Run& run, const std::string& prompt, const std::string& controller_id,
                  boost::json::object source) {
  core::Session session;
  session.run_id = run.id;
  session.index = run.session_count;
  session.status = std::string(core::to_string(core::RunStatus::running));
  session.started_at = core::now_iso8601();
  session.backend_session_id = run.backend_session_id;
  session.prompt = prompt;
  session.source = std::move(source);
  c.sessions().insert(session);
  record_parent_notification(c, run, session.index, session.started_at);
  run.session_count += 1;
  run.status = core::RunStatus::running;
  run.status_reason.clear();
  run.finished_at.reset();
  if (!run.started_at) run.started_at = session.started_at;
  // Passive runs have no live controller: nothing to re-adopt or lose on restart.
  run.controller_id = run.frozen.backend == core::passive_backend ? std::string() : controller_id;
  if (!run.controller_id.empty()) take_run_lease(c, run.id, run.controller_id);
}

int attempts_in_current_session(store::Transaction& c, const core::Run& run) {
  const int session = run.session_count - 1;
  int in_session = 0;
  for (const auto& a : c.sessions().list_attempts(run.id))
    if (a.session_index == session) ++in_session;
  return in_session;
}

void open_attempt(store::Transaction& c, core::Run& run, boost::json::object extra) {
  const int session = run.session_count - 1;
  const int in_session = attempts_in_current_session(c, run);
  core::Attempt attempt;
  attempt.run_id = run.id;
  attempt.number = run.attempt_count + 1;
  attempt.session_index = session;
  attempt.index_in_session = in_session;
  attempt.started_at = core::now_iso8601();
  c.sessions().insert_attempt(attempt);
  run.attempt_count = attempt.number;
  core::TimelineEvent started;
  started.run_id = run.id;
  started.kind = "attempt.started";
  started.attempt_number = attempt.number;
  started.at = attempt.started_at;
  started.payload = {{"attemptNumber", attempt.number},
                     {"sessionIndex", session},
                     {"attemptIndexInSession", in_session},
                     {"backend", run.frozen.backend}};
  for (auto& [key, value] : extra) started.payload[key] = std::move(value);
  c.timeline().append(started);
}

void close_session(store::Transaction& c, core::Run& run, core::RunStatus status, const std::string& reason,
                   const std::string& ended_by) {
  auto now = core::now_iso8601();
  if (run.session_count > 0) {
    if (auto session = c.sessions().get(run.id, run.session_count - 1); session && !session->ended_at) {
      session->status = std::string(core::to_string(status));
      session->ended_at = now;
      session->end_reason = reason;
      session->ended_by = ended_by;
      session->backend_session_id = run.backend_session_id;
      c.sessions().update(*session);
    }
  }
  run.status = status;
  run.status_reason = reason;
  run.finished_at = now;
  run.controller_id.clear();
  c.leases().release(run.id);
  c.approvals().remove_all(run.id);  // no attempt is left to hear an answer
  // Every end of a session passes here (the agent's, an abort, a restart's reconciliation,
  // a passive run's tasks), inside its write: the notification commits with the end.
  // The session count and the run's revision (which only grows, through resets too)
  // make each end its own occurrence.
  // A run with afterExit hooks holds it until they ran: one may refuse a success, and the
  // notification must then say what the run and session finally say (engine/hooks/after_exit.hpp).
  queue_notification(c, run, core::notify_event_finished,
                     "end-" + std::to_string(run.session_count) + "." + std::to_string(run.revision),
                     {{"endedBy", ended_by}}, has_hooks(run, core::HookPhase::after_exit));
}

std::optional<core::RunStatus> settle_passive_run(store::Transaction& c, core::Run& run, const Actor& actor) {
  if (run.frozen.backend != core::passive_backend || run.status != core::RunStatus::running) return std::nullopt;
  auto derived = core::passive_status_from_tasks(c.tasks().list(run.id));
  if (derived == core::RunStatus::running) return std::nullopt;
  std::string reason = derived == core::RunStatus::success ? "all tasks completed" : "a task is blocked";
  close_session(c, run, derived, reason, "tasks");
  append_audit(c, run.id, "run.finished", actor,
               {{"status", core::to_string(derived)}, {"reason", reason}, {"backend", run.frozen.backend}});
  // Passive runs have no attempts: a task change is what ends their session, so it is
  // also what delivers their queue.
  deliver_queued_messages(c, run, std::string(), Actor{"engine"});
  return derived;
}

}  // namespace agentry::engine::detail

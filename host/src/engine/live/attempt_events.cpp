#include "engine/live/attempt_events.hpp"

#include "core/clock.hpp"
#include "core/utf8.hpp"
#include "engine/live/attempt_policy.hpp"
#include "engine/live/usage_events.hpp"
#include "engine/mutation_support.hpp"
#include "engine/outbox/notification_outbox.hpp"
#include "engine/queued_delivery.hpp"
#include "store/approval_repository.hpp"
#include "store/event_repository.hpp"
#include "store/lease_repository.hpp"
#include "store/run_repository.hpp"
#include "store/run_token_repository.hpp"
#include "store/session_repository.hpp"
#include "store/task_repository.hpp"
#include "store/transaction.hpp"

#include <boost/json/array.hpp>

namespace agentry::engine {
namespace json = boost::json;

namespace {

const Actor engine_actor{"engine"};

// Kinds compared as views: the size first, where `std::string == const char*` measures
// the literal and compares text for every event.
using namespace std::string_view_literals;

core::TimelineEvent timeline_event(const AttemptContext& a, std::string kind, json::object payload) {
  core::TimelineEvent e;
  e.run_id = a.run_id;
  e.kind = std::move(kind);
  e.attempt_number = a.attempt_number;
  e.at = core::now_time_text();
  e.payload = std::move(payload);
  return e;
}

/// A backend event's row, made in place at the end of `rows`: the row borrows the
/// payload as the plugin wrote it (core::TimelineEvent), and the event keeps it, and its
/// object, for a retry of the job and for LiveRun, which tracks approval requests from it
/// after the commit. `at` is the batch's: its events are written at one moment.
core::TimelineEvent& add_backend_row(std::vector<core::TimelineEvent>& rows, const AttemptContext& a,
                                     const plugin_host::BackendEvent& event, const core::TimeText& at) {
  auto& row = rows.emplace_back();
  row.run_id = a.run_id;
  row.kind = event.kind;
  row.attempt_number = a.attempt_number;
  row.at = at;
  row.borrowed_payload_json = event.payload_json;
  return row;
}

/// Closes the session the decision ends, with run.finished (timeline and audit).
void close_with(store::Transaction& c, core::Run& run, const AttemptContext& a, const AttemptDecision& decision,
                std::vector<core::TimelineEvent>& rows) {
  detail::close_session(c, run, decision.status, decision.reason, decision.ended_by);
  rows.push_back(timeline_event(a, "run.finished", {{"status", core::to_string(decision.status)}, {"reason", decision.reason}}));
  detail::append_audit(c, run.id, "run.finished", engine_actor,
                       {{"status", core::to_string(decision.status)},
                        {"reason", decision.reason},
                        {"attemptNumber", a.attempt_number},
                        {"endedBy", decision.ended_by},
                        {"backend", run.frozen.backend}});
}

/// Whether what follows an attempt that ended so may wait for afterAttempt hooks: an end
/// the backend reported, not one the host forced, a timeout, a stop or a failed takeover
/// (those decide at once, as without such hooks).
bool deferrable(const AttemptContext& a, const std::string& outcome, bool forced, bool adoption_failed) {
  return a.defer_decision && !forced && !adoption_failed && !a.timeout_message && !a.budget_message && !a.abort_requested &&
         !a.shutdown_requested && outcome != "interrupted";
}

/// Ends the attempt; appends attempt.finished when the backend did not, and decides what
/// comes next (nullopt: left to its afterAttempt hooks, deferrable()). When the session
/// ends, closes it with run.finished (timeline and audit).
std::optional<AttemptDecision> finish(store::Transaction& c, core::Run& run, const AttemptContext& a,
                                      const std::string& outcome, const std::string& message,
                                      std::vector<core::TimelineEvent>& rows, bool forced, bool adoption_failed) {
  for (auto& attempt : c.sessions().list_attempts(a.run_id)) {
    if (attempt.number != a.attempt_number || attempt.ended_at) continue;
    attempt.ended_at = core::now_iso8601();
    attempt.outcome = outcome;
    c.sessions().update_attempt(attempt);
  }
  if (forced)
    rows.push_back(timeline_event(a, "attempt.finished", {{"outcome", outcome}, {"message", message}, {"forced", true}}));
  if (deferrable(a, outcome, forced, adoption_failed)) return std::nullopt;
  AttemptEnd end{outcome, message, forced, a.abort_requested, a.shutdown_requested, a.timeout_message, a.budget_message, adoption_failed};
  // The tasks as the agent left them: it reports progress through the task API while it works.
  auto decision = decide_after_attempt(end, c.tasks().list(a.run_id),
                                       detail::attempts_in_current_session(c, run),
                                       std::max(1, run.frozen.max_attempts_per_session));
  if (!decision.retry) close_with(c, run, a, decision, rows);
  return decision;
}

json::object recovery_audit(const core::Run& run) {
  return {{"backend", run.frozen.backend},
          {"backendSessionId", run.backend_session_id ? json::value(*run.backend_session_id) : json::value(nullptr)}};
}

// The backend's answer to an adoption (ext/detach.h): the audit record of the restart's
// reconciliation of this run.
void record_adoption(store::Transaction& c, const core::Run& run, const AttemptContext& a, const json::object& adoption) {
  json::object data = recovery_audit(run);
  data["controllerId"] = a.previous_controller_id;
  for (const auto& [key, value] : adoption) data[key] = value;
  detail::append_audit(c, run.id, "run.controller_reconciled", Actor{"daemon"}, std::move(data));
}

// The attempt goes on without us: the session and the attempt stay open, and the next
// daemon to start takes them over. Nobody drives the run meanwhile, so no live owner
// check can keep that daemon from it.
void record_detached(store::Transaction& c, core::Run& run, const AttemptContext& a, const json::object& payload,
                     std::vector<core::TimelineEvent>& rows) {
  run.controller_id.clear();
  c.leases().release(run.id);
  json::object data = recovery_audit(run);
  data["transportType"] = payload.contains("transportType") ? payload.at("transportType") : json::value(nullptr);
  data["reason"] = payload.contains("message") ? payload.at("message") : json::value("agentry is shutting down");
  rows.push_back(timeline_event(a, "session.detached", payload));
  detail::append_audit(c, run.id, "run.controller_detached", engine_actor, std::move(data));
}

// The agent waits on the user: tell the run's run.needs_user targets, once per approval.
void queue_needs_user(store::Transaction& c, const core::Run& run, const json::object& payload) {
  auto* id = payload.if_contains("approvalId");
  if (!id || !id->is_string() || id->as_string().empty()) return;
  json::object approval{{"approvalId", id->as_string()}};
  for (const char* key : {"kind", "summary"})
    if (auto* v = payload.if_contains(key); v && v->is_string())
      approval[key] = core::sanitize_utf8(std::string_view(v->as_string()).substr(0, 1000));
  // The revision tells apart a reset run's (or a later session's) approval that reuses an id.
  detail::queue_notification(c, run, core::notify_event_needs_user,
                             "approval-" + std::string(id->as_string()) + "." + std::to_string(run.revision),
                             {{"approval", std::move(approval)}});
}

json::array strings(const std::vector<std::string>& items) {
  json::array out;
  for (const auto& s : items) out.emplace_back(s);
  return out;
}

/// What follows the attempt `decision` decided: the next attempt opened in this write
/// (its nudge with the task commands, unless `with_task_commands` is false: a hook's own
/// prompt), or the end of the session, its token gone and a queued-message session
/// opened when messages wait.
void conclude(store::Transaction& c, core::Run& run, const AttemptContext& a, AttemptDecision& decision,
              bool with_task_commands, BatchOutcome& out) {
  if (decision.retry) {
    if (a.task_prompt && with_task_commands)
      if (auto commands = task_commands(run, *a.task_prompt); !commands.empty()) decision.nudge += "\n\n" + commands;
    detail::open_attempt(c, run, {{"prompt", decision.nudge}, {"incompleteTasks", strings(decision.incomplete_task_ids)}});
    out.next_attempt = NextAttempt{run.attempt_count, decision.nudge, run.backend_session_id};
    return;
  }
  out.session_ended = true;
  out.ended_status = core::to_string(decision.status);
  // The session's agent is done: its token goes in this commit, before a queued-message
  // session (which gets its own) opens. A detached agent works on and keeps its token.
  c.run_tokens().remove_for_run(a.run_id);
  if (detail::delivers_queue(decision.ended_by) && !a.shutdown_requested &&
      !detail::holds_child_completions(c, run, a.child_limits))
    if (auto prompt = detail::deliver_queued_messages(c, run, a.controller_id, engine_actor, false, a.task_prompt))
      out.next_session = NextSession{run, std::move(*prompt)};
}

}  // namespace

std::optional<core::PendingApproval> pending_approval_of(const json::object& p) {
  core::PendingApproval approval;
  if (auto* id = p.if_contains("approvalId"); id && id->is_string()) approval.approval_id = id->as_string();
  if (approval.approval_id.empty()) return std::nullopt;
  if (auto* kind = p.if_contains("kind"); kind && kind->is_string()) approval.kind = kind->as_string();
  if (auto* summary = p.if_contains("summary"); summary && summary->is_string()) approval.summary = summary->as_string();
  if (auto* details = p.if_contains("details")) approval.details = *details;
  approval.requested_at = core::now_iso8601();
  return approval;
}

BatchOutcome apply_backend_events(store::Transaction& c, const AttemptContext& a,
                                  std::vector<plugin_host::BackendEvent>& events, const std::optional<ForcedEnd>& forced) {
  BatchOutcome out;
  if (!c.leases().hold(a.run_id, a.controller_id, a.lease_epoch)) {
    out.fenced = true;  // another controller took the run over: not ours to write
    return out;
  }
  auto run = detail::load_run(c, a.run_id);
  if (!run) return out;  // deleted meanwhile: nothing to record
  std::vector<core::TimelineEvent> rows;
  rows.reserve(events.size() + 2);
  std::optional<AttemptDecision> decision;
  bool ended = false;  // the attempt ended (decided, or left to its afterAttempt hooks)
  out.adoption_reported = a.adoption_reported;
  out.adoption_failed = a.adoption_failed;
  const core::TimeText at = core::now_time_text();
  for (auto& event : events) {
    if (event.ephemeral) {
      // Streamed in place among the durable events, never stored. The live feed reads
      // the delta's text from the object, a copy: the event keeps its own for a retry.
      auto& row = add_backend_row(rows, a, event, at);
      row.payload = event.payload();
      row.ephemeral = true;
      continue;
    }
    // Parsed only for the kinds read here: most events are only stored and streamed.
    auto payload = [&]() -> const json::object& { return event.payload(); };
    if (event.kind == "session.checkpoint"sv) {
      if (auto* token = payload().if_contains("resumeToken"); token && token->is_string()) {
        run->backend_session_id = std::string(token->as_string());
        out.run_changed = true;
      }
    }
    if (event.kind == "approval.request"sv) {
      queue_needs_user(c, *run, payload());
      // Kept beside the run, so that every member shows it and takes the answer.
      // The run changes with it: summaries count the questions waiting (pendingApprovalCount).
      if (auto approval = pending_approval_of(payload())) {
        c.approvals().insert(a.run_id, *approval);
        run->pending_approval_count += 1;
        out.run_changed = true;
      }
    }
    // Summaries show the new totals once it commits.
    if (event.kind == "usage"sv) {
      auto recorded = record_usage(c, *run, a, payload());
      if (recorded.added) out.run_changed = true;
      if (recorded.budget_exceeded && !out.budget_exceeded) out.budget_exceeded = recorded.budget_exceeded;
    }
    if (a.adopting && !out.adoption_reported && event.kind == "notice"sv)
      if (auto* adoption = payload().if_contains("adoption"); adoption && adoption->is_object()) {
        record_adoption(c, *run, a, adoption->as_object());
        out.adoption_reported = true;
        auto* verdict = adoption->as_object().if_contains("decision");
        out.adoption_failed = verdict && verdict->is_string() && verdict->as_string() == "finalized";
      }
    if (event.terminal && !ended && !out.detached) {
      std::string outcome = "error";
      if (auto* o = payload().if_contains("outcome"); o && o->is_string()) outcome = std::string(o->as_string());
      std::string message;
      if (auto* m = payload().if_contains("message"); m && m->is_string()) message = std::string(m->as_string());
      if (outcome == "detached" && a.detach_requested) {
        record_detached(c, *run, a, payload(), rows);
        out.detached = out.run_changed = true;
        continue;
      }
      if (outcome == "detached") message = "the backend detached without being asked to: " + message;
      add_backend_row(rows, a, event, at);
      out.attempt_outcome = outcome;
      out.attempt_message = message;
      decision = finish(c, *run, a, outcome, message, rows, false, out.adoption_failed);
      ended = true;
      continue;
    }
    add_backend_row(rows, a, event, at);
  }
  if (forced && forced->outcome == "detached" && a.detach_requested && !ended && !out.detached) {
    record_detached(c, *run, a, {{"outcome", "detached"}, {"message", forced->message}, {"forced", true}}, rows);
    out.detached = out.run_changed = true;
  }
  if (forced && !ended && !out.detached) {
    if (a.adopting && !out.adoption_reported) {
      record_adoption(c, *run, a,
                      {{"decision", "finalized"}, {"reason", forced->adoption_reason}, {"error", forced->message}});
      out.adoption_reported = out.adoption_failed = true;
    }
    out.attempt_outcome = forced->outcome;
    out.attempt_message = forced->message;
    decision = finish(c, *run, a, forced->outcome, forced->message, rows, true, out.adoption_failed);
    ended = true;
  }
  if (out.detached) out.session_ended = true;  // for this process: the store keeps it open
  // This attempt's rows first, so whatever follows gets later cursors. Subscribers get
  // them, ephemeral ones in place, once the commit is done.
  c.timeline().append_batch(a.run_id, rows);
  if (ended) {
    c.approvals().remove_all(a.run_id);  // nobody is left to answer: the attempt that asked is over
    out.attempt_ended = true;
    out.run_changed = true;
    if (decision) conclude(c, *run, a, *decision, true, out);
    else out.decision_pending = true;
  }
  if (out.run_changed) {
    detail::touch(*run);
    c.runs().update(*run);
    if (out.next_session) out.next_session->run = *run;
  }
  return out;
}

BatchOutcome conclude_deferred_attempt(store::Transaction& c, const AttemptContext& a, const std::string& outcome,
                                       const std::string& message, const AfterAttemptAsk& ask) {
  BatchOutcome out;
  if (!c.leases().hold(a.run_id, a.controller_id, a.lease_epoch)) {
    out.fenced = true;
    return out;
  }
  auto run = detail::load_run(c, a.run_id);
  if (!run) return out;
  AttemptEnd end{outcome, message, false, a.abort_requested, a.shutdown_requested, a.timeout_message, a.budget_message, false};
  const int used = detail::attempts_in_current_session(c, *run);
  const int budget = std::max(1, run->frozen.max_attempts_per_session);
  auto decision = ask.reinvoke && ask.prompt ? decide_after_reinvoke(end, used, budget, *ask.prompt)
                                             : decide_after_attempt(end, c.tasks().list(a.run_id), used, budget);
  // A retry the rules chose takes the prompt a hook set for it (mutate.run.attemptPrompt).
  const bool hook_prompt = decision.retry && ask.prompt.has_value();
  if (hook_prompt) decision.nudge = *ask.prompt;
  std::vector<core::TimelineEvent> rows;
  if (!decision.retry) close_with(c, *run, a, decision, rows);
  c.timeline().append_batch(a.run_id, rows);
  out.attempt_ended = true;
  out.run_changed = true;
  out.attempt_outcome = outcome;
  out.attempt_message = message;
  conclude(c, *run, a, decision, !hook_prompt, out);
  detail::touch(*run);
  c.runs().update(*run);
  if (out.next_session) out.next_session->run = *run;
  return out;
}

}  // namespace agentry::engine

#include "engine/attempt_events.hpp"

#include "agentry/plugin/events.h"
#include "core/clock.hpp"
#include "engine/mutation_support.hpp"
#include "events/projections.hpp"
#include "store/event_repository.hpp"
#include "store/run_repository.hpp"
#include "store/session_repository.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace agentry::engine {
namespace json = boost::json;

std::string timeline_kind(std::uint16_t type) {
  switch (type) {
    case AGENTRY_EVENT_MESSAGE_DELTA: return "message.delta";
    case AGENTRY_EVENT_MESSAGE_COMPLETED: return "message.completed";
    case AGENTRY_EVENT_REASONING: return "reasoning";
    case AGENTRY_EVENT_TOOL_STARTED: return "tool.started";
    case AGENTRY_EVENT_TOOL_COMPLETED: return "tool.completed";
    case AGENTRY_EVENT_APPROVAL_REQUEST: return "approval.request";
    case AGENTRY_EVENT_USAGE: return "usage";
    case AGENTRY_EVENT_NOTICE: return "notice";
    case AGENTRY_EVENT_CHECKPOINT: return "session.checkpoint";
    case AGENTRY_EVENT_FINISHED: return "attempt.finished";
    default: return "event." + std::to_string(type);  // a type from a newer ABI minor
  }
}

namespace {

const Actor engine_actor{"engine"};

core::RunStatus status_for(const std::string& outcome, const AttemptContext& a) {
  if (a.timeout_message) return core::RunStatus::error;
  if (outcome == "success") return core::RunStatus::success;
  if (outcome == "interrupted") return a.abort_requested ? core::RunStatus::aborted : core::RunStatus::error;
  return core::RunStatus::error;
}

std::string reason_for(const std::string& outcome, const std::string& message, const AttemptContext& a) {
  if (a.timeout_message) return *a.timeout_message;
  if (!message.empty()) return message;
  if (outcome == "success") return "the agent finished";
  if (outcome == "interrupted") return a.abort_requested ? "aborted" : "the agent was interrupted";
  return "the agent failed";
}

core::TimelineEvent timeline_event(const AttemptContext& a, std::string kind, json::object payload) {
  core::TimelineEvent e;
  e.run_id = a.run_id;
  e.kind = std::move(kind);
  e.attempt_number = a.attempt_number;
  e.at = core::now_iso8601();
  e.payload = std::move(payload);
  return e;
}

/// Ends attempt, session and run; appends attempt.finished (if the backend did not) and run.finished.
void finish(store::Connection& c, core::Run& run, const AttemptContext& a, const std::string& outcome,
            const std::string& message, std::vector<core::TimelineEvent>& rows, bool backend_reported) {
  const auto status = status_for(outcome, a);
  const auto reason = reason_for(outcome, message, a);
  auto attempts = store::SessionRepository::list_attempts(c, a.run_id);
  for (auto& attempt : attempts) {
    if (attempt.number != a.attempt_number || attempt.ended_at) continue;
    attempt.ended_at = core::now_iso8601();
    attempt.outcome = outcome;
    store::SessionRepository::update_attempt(c, attempt);
  }
  if (!backend_reported)
    rows.push_back(timeline_event(a, "attempt.finished", {{"outcome", outcome}, {"message", message}, {"forced", true}}));
  detail::close_session(c, run, status, reason);
  rows.push_back(timeline_event(a, "run.finished", {{"status", core::to_string(status)}, {"reason", reason}}));
  detail::append_audit(c, run.id, "run.finished", engine_actor,
                       {{"status", core::to_string(status)},
                        {"reason", reason},
                        {"attemptNumber", a.attempt_number},
                        {"backend", run.frozen.backend}});
}

}  // namespace

BatchOutcome apply_backend_events(store::Connection& c, const AttemptContext& a,
                                  std::vector<plugins::BackendEvent>& events, const std::optional<ForcedEnd>& forced) {
  BatchOutcome out;
  auto run = detail::load_run(c, a.run_id);
  if (!run) return out;  // deleted meanwhile: nothing to record
  std::vector<core::TimelineEvent> rows;
  rows.reserve(events.size() + 2);
  for (auto& event : events) {
    auto payload = json::parse(event.payload).as_object();
    if (event.ephemeral()) {
      json::object envelope{{"runId", a.run_id}, {"cursor", nullptr}, {"kind", timeline_kind(event.type)},
                            {"attemptNumber", a.attempt_number}, {"at", core::now_iso8601()},
                            {"payload", payload}, {"ephemeral", true}};
      out.ephemeral.push_back(json::serialize(envelope));
      continue;
    }
    if (event.type == AGENTRY_EVENT_CHECKPOINT) {
      if (auto* token = payload.if_contains("resumeToken"); token && token->is_string()) {
        run->backend_session_id = std::string(token->as_string());
        out.run_changed = true;
      }
    }
    rows.push_back(timeline_event(a, timeline_kind(event.type), payload));
    if (event.terminal()) {
      std::string outcome = "error";
      if (auto* o = payload.if_contains("outcome"); o && o->is_string()) outcome = std::string(o->as_string());
      std::string message;
      if (auto* m = payload.if_contains("message"); m && m->is_string()) message = std::string(m->as_string());
      finish(c, *run, a, outcome, message, rows, true);
      out.finished = true;
    }
  }
  if (forced && !out.finished) {
    finish(c, *run, a, forced->outcome, forced->message, rows, false);
    out.finished = true;
  }
  store::TimelineRepository::append_batch(c, a.run_id, rows);
  if (out.finished) out.run_changed = true;
  if (out.run_changed) {
    detail::touch(*run);
    store::RunRepository::update(c, *run);
  }
  return out;
}

}  // namespace agentry::engine

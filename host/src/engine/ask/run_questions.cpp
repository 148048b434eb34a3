// AskService::ask: what a run's backend says about the run's state, without a turn of the
// run. The host gathers the state (tasks, recent timeline, final message, the browser's
// latest frame), puts the question to a fresh backend instance (backend_question.hpp)
// and records the ask in the audit trail, never in the timeline.

#include "engine/ask/ask_service.hpp"

#include "engine/ask/backend_question.hpp"
#include "engine/backend_catalog.hpp"
#include "engine/mutation_support.hpp"
#include "engine/live/start_config.hpp"

#include "core/ids.hpp"
#include "core/utf8.hpp"
#include "events/event_bus.hpp"
#include "store/event_repository.hpp"
#include "store/store.hpp"
#include "store/task_repository.hpp"

#include <boost/json/array.hpp>

#include <chrono>

namespace agentry::engine {
namespace json = boost::json;

namespace {

constexpr std::size_t recent_events = 30;      // the timeline's newest events sent along
constexpr std::size_t scanned_events = 500;    // searched for the final message
constexpr std::size_t max_event_text = 1000;   // bytes of one event's text
constexpr std::size_t audited_question = 500;  // bytes of the question kept in the audit

std::string clip(std::string_view text, std::size_t max) {
  return core::sanitize_utf8(text.substr(0, max));
}

std::string text_of(const json::object& payload) {
  for (const char* key : {"text", "message", "output", "summary", "command", "reason"})
    if (const json::value* v = payload.if_contains(key); v && v->is_string())
      return clip(v->get_string(), max_event_text);
  return {};
}

json::object compact_event(const core::TimelineEvent& e) {
  json::object out{{"type", e.kind}, {"at", e.at}};
  if (auto text = text_of(e.payload); !text.empty()) out["text"] = std::move(text);
  for (const char* key : {"tool", "status", "outcome"})
    if (const json::value* v = e.payload.if_contains(key); v && v->is_string()) out[key] = *v;
  return out;
}

/// What the question is asked about, read in one snapshot.
struct AskedState {
  core::Run run;
  std::vector<core::Task> tasks;
  std::vector<core::TimelineEvent> events;  // the newest scanned_events, oldest first
};

json::object run_state(const AskedState& asked, const events::BrowserView* frame) {
  const auto& events = asked.events;
  json::array tasks;
  for (const auto& t : asked.tasks) {
    json::object task{{"id", t.id}, {"title", t.title}, {"status", core::to_string(t.status)}};
    if (!t.notes.empty()) task["note"] = clip(t.notes, max_event_text);
    tasks.push_back(std::move(task));
  }
  json::array recent;
  const std::size_t first = events.size() > recent_events ? events.size() - recent_events : 0;
  for (std::size_t i = first; i < events.size(); ++i) recent.push_back(compact_event(events[i]));
  json::value final_message = nullptr;
  for (auto it = events.rbegin(); it != events.rend(); ++it)
    if (it->kind == "message.completed") {
      if (const json::value* v = it->payload.if_contains("text"); v && v->is_string()) {
        final_message = clip(v->get_string(), 8 * max_event_text);
        break;
      }
    }
  json::value latest_frame = nullptr;
  if (frame && frame->available) latest_frame = json::object{{"mime", frame->mime}, {"data", frame->data_base64}};
  return {{"status", core::to_string(asked.run.status)},
          {"statusReason", asked.run.status_reason.empty() ? json::value(nullptr) : json::value(asked.run.status_reason)},
          {"tasks", std::move(tasks)},
          {"recentTimeline", std::move(recent)},
          {"finalMessage", std::move(final_message)},
          {"latestFrame", std::move(latest_frame)}};
}

}  // namespace

core::Result<AskAnswer> AskService::ask(const std::string& run_id, const AskRequest& request, const Actor& actor) {
  auto asked = db_.read([&](store::Transaction& c) -> core::Result<AskedState> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    auto tasks = c.tasks().list(run_id);
    auto events = c.timeline().list(run_id, core::EventPageQuery{.limit = scanned_events, .newest = true});
    return AskedState{std::move(*run), std::move(tasks), std::move(events)};
  });
  if (!asked) return asked.failure();
  const core::Run& run = asked->run;
  const std::string& backend = run.frozen.backend;
  if (backend == core::passive_backend || !backends_.has(backend))
    return core::fail(core::ErrorCode::conflict,
                      backend == core::passive_backend
                          ? "the passive backend runs no agent to ask; ask is not supported for this run"
                          : "backend '" + backend + "' is not loaded in this daemon, so it cannot answer",
                      {{"backend", backend}, {"reason", "not_supported"}});
  // Each question holds a slow-work thread while the backend thinks.
  if (in_flight_.fetch_add(1) >= max_in_flight) {
    in_flight_.fetch_sub(1);
    return core::fail(core::ErrorCode::unavailable,
                      std::to_string(max_in_flight) + " questions are being answered already; ask again shortly",
                      {{"reason", "busy"}});
  }
  struct Release {
    std::atomic<int>& n;
    ~Release() { n.fetch_sub(1); }
  } release{in_flight_};

  // A side question starts a process of its own beside the run's; in a container it
  // would need the run's container, which only a live attempt holds.
  if (run.frozen.environment && run.frozen.environment->kind == "container")
    return core::fail(core::ErrorCode::conflict,
                      "ask is not supported for runs in a container environment ('" + run.frozen.environment->name +
                          "') yet",
                      {{"environment", run.frozen.environment->name}, {"reason", "not_supported"}});
  auto config = backend_start_config(run);
  if (!config) return config.failure();
  BackendQuestion question;
  question.backend = backend;
  question.ask_id = core::new_prefixed_id("ask");
  question.timeout = request.timeout;
  question.request = {{"askId", question.ask_id},
                      {"question", request.question},
                      {"runId", run_id},
                      {"config", std::move(*config)},
                      {"workspacePath", run.cwd},
                      {"resumeToken", run.backend_session_id ? json::value(*run.backend_session_id) : json::value(nullptr)},
                      {"state", run_state(*asked, bus_.browser().latest(run_id).get())}};
  const auto began = std::chrono::steady_clock::now();
  QuestionResult result = put_question(backends_.registry(), question);
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began);

  json::object audit{{"askId", question.ask_id},
                     {"question", clip(request.question, audited_question)},
                     {"backend", backend},
                     {"outcome", to_string(result.outcome)},
                     {"durationMs", took.count()}};
  if (result.outcome == QuestionOutcome::answered) audit["answerChars"] = result.answer.size();
  else audit["error"] = clip(result.error, max_event_text);
  // Only the audit trail changes: the run's summary and detail stay as they were.
  auto recorded = db_.write<bool>([&](store::Transaction& c) -> core::Result<bool> {
    detail::append_audit(c, run_id, "run.asked", actor, std::move(audit));
    return true;
  });
  if (!recorded) return recorded.failure();
  bus_.notify(events::Channel::audit, run_id);

  switch (result.outcome) {
    case QuestionOutcome::answered:
      return AskAnswer{question.ask_id, run_id, backend, std::move(result.answer), std::move(result.usage), took.count()};
    case QuestionOutcome::not_supported:
      return core::fail(core::ErrorCode::conflict, result.error, {{"backend", backend}, {"reason", "not_supported"}});
    case QuestionOutcome::timeout:
    case QuestionOutcome::backend_error:
      return core::fail(core::ErrorCode::unavailable, result.error,
                        {{"backend", backend}, {"askId", question.ask_id}, {"reason", to_string(result.outcome)}});
  }
  return core::fail(core::ErrorCode::internal, "unreachable");
}

}  // namespace agentry::engine

// ParentCompletionService: parent-completion notifications (engine/parent_completion/parent_notifications.hpp). Recorded
// when a child's session is allocated; delivered, once, after that session has ended:
// on the pool as the child's change is heard (never on a request worker or the writer),
// and by the startup sweep for sessions that ended while no daemon delivered.

#include "engine/parent_completion/parent_notifications.hpp"
#include "engine/placement/placement.hpp"

#include "core/clock.hpp"
#include "core/ids.hpp"
#include "core/log.hpp"
#include "engine/parent_completion/child_resume_limits.hpp"
#include "engine/dependencies/dependency_checks.hpp"
#include "engine/parent_completion/parent_completion_service.hpp"
#include "engine/backend_catalog.hpp"
#include "engine/delayed_calls.hpp"
#include "engine/run_change_watcher.hpp"
#include "engine/run_starts.hpp"
#include "engine/mutation_support.hpp"
#include "engine/parent_completion/parent_notification_message.hpp"
#include "engine/placement/placement.hpp"
#include "engine/queued_delivery.hpp"
#include "store/event_repository.hpp"
#include "store/parent_notification_repository.hpp"
#include "store/queued_message_repository.hpp"
#include "store/session_repository.hpp"
#include "store/run_repository.hpp"
#include "store/run_start_repository.hpp"
#include "store/store.hpp"

#include <algorithm>

namespace agentry::engine {
namespace json = boost::json;

namespace detail {

void record_parent_notification(store::Transaction& c, const core::Run& run, int session_index,
                                const std::string& at) {
  if (!run.parent_run_id || !run.frozen.notify_parent_on_complete) return;
  core::ParentNotification n;
  n.child_run_id = run.id;
  n.child_session_index = session_index;
  n.parent_run_id = *run.parent_run_id;
  n.state = "pending";
  n.created_at = n.updated_at = at;
  c.parent_notifications().upsert(n);
  append_audit(c, run.id, "parent_notification.pending", Actor{"engine"},
               {{"parentRunId", n.parent_run_id}, {"sessionIndex", session_index}});
}

json::object child_completion_source(const std::string& child_run_id, int session_index,
                                     const std::string& session_started_at) {
  return {{"kind", "child_completion"},
          {"childRunId", child_run_id},
          {"childSessionIndex", session_index},
          {"childSessionStartedAt", session_started_at}};
}

bool same_child_completion(const json::object& source, const json::object& wanted) {
  for (const char* key : {"kind", "childRunId", "childSessionIndex", "childSessionStartedAt"}) {
    auto* a = source.if_contains(key);
    auto* b = wanted.if_contains(key);
    if (!a || !b || *a != *b) return false;
  }
  return true;
}

std::vector<std::string> session_transcript(store::Transaction& c, const std::string& run_id, int session_index) {
  std::vector<int> attempts;
  for (const auto& a : c.sessions().list_attempts(run_id))
    if (a.session_index == session_index) attempts.push_back(a.number);
  std::vector<std::string> out;
  if (attempts.empty()) return out;
  const int first = *std::min_element(attempts.begin(), attempts.end());
  const int last = *std::max_element(attempts.begin(), attempts.end());
  auto events = c.timeline().last_of_attempts(run_id, "message.completed", first, last, 32);
  std::optional<int> attempt;  // the last attempt that said anything
  for (auto it = events.rbegin(); it != events.rend(); ++it) {
    auto* role = it->payload.if_contains("role");
    if (role && (!role->is_string() || role->as_string() != "assistant")) continue;
    auto* text = it->payload.if_contains("text");
    if (!text || !text->is_string()) continue;
    if (!attempt) attempt = it->attempt_number;
    if (it->attempt_number != attempt) break;
    out.emplace_back(text->as_string());
  }
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace detail

namespace {

const Actor daemon_actor{"daemon"};

/// What one delivery job did, for after its commit.
struct DeliveryOutcome {
  int delivered = 0;
  std::vector<std::string> changed;   // runs whose state the job wrote
  std::optional<core::Run> launch;    // a parent session to launch
  std::string prompt;
  /// A parent past its child-resume rate, and how long until one resume may deliver
  /// what was held for it (engine/parent_completion/child_resume_limits.hpp).
  std::optional<std::pair<std::string, std::chrono::milliseconds>> hold;
};

/// Puts a child's completion message on the parent's queue, with its source: delivered
/// with the parent's next session (now if it runs, else when it is resumed).
std::string queue_on_parent(store::Transaction& c, core::Run& parent, const std::string& text,
                            const json::object& source, const std::string& child_id, int child_session_index) {
  core::QueuedMessage m;
  m.id = core::new_prefixed_id("qm");
  m.run_id = parent.id;
  m.text = text;
  m.source = source;
  m.created_at = core::now_iso8601();
  c.queued_messages().insert(m);
  parent.queued_message_count += 1;
  detail::save_with_audit(c, parent, "run.message_queued", daemon_actor,
                          {{"messageId", m.id},
                           {"length", text.size()},
                           {"queuedMessageCount", parent.queued_message_count},
                           {"source", "child_completion"},
                           {"childRunId", child_id},
                           {"childSessionIndex", child_session_index}});
  return m.id;
}

/// Marks the row and audits it on the child.
void settle(store::Transaction& c, core::ParentNotification n, const std::string& state, const std::string& reason,
            const std::string& delivery, json::object data) {
  const std::string now = core::now_iso8601();
  n.state = state;
  n.reason = reason;
  n.delivery = delivery;
  n.updated_at = now;
  if (state == "delivered") n.delivered_at = now;
  c.parent_notifications().upsert(n);
  data["parentRunId"] = n.parent_run_id;
  data["sessionIndex"] = n.child_session_index;
  if (!reason.empty()) data["reason"] = reason;
  if (!delivery.empty()) data["delivery"] = delivery;
  detail::append_audit(c, n.child_run_id, "parent_notification." + state, daemon_actor, std::move(data));
}

/// Whether a session's source lists `wanted` among the queued messages it delivered
/// (engine/queued_delivery.hpp), directly or beside a child's completion.
bool delivered_with_queue(const json::object& session_source, const json::object& wanted) {
  if (auto* listed = session_source.if_contains("sources"); listed && listed->is_array())
    for (const auto& item : listed->as_array())
      if (item.is_object() && detail::same_child_completion(item.as_object(), wanted)) return true;
  if (auto* queued = session_source.if_contains("queued"); queued && queued->is_object())
    return delivered_with_queue(queued->as_object(), wanted);
  return false;
}

/// How the parent already got this notification, if it did: a queued message or a
/// session carrying the same source metadata.
std::optional<std::string> existing_delivery(store::Transaction& c, const std::string& parent_id,
                                             const json::object& source) {
  for (const auto& m : c.queued_messages().list(parent_id))
    if (detail::same_child_completion(m.source, source)) return std::string("queued_message");
  for (const auto& s : c.sessions().list(parent_id)) {
    if (detail::same_child_completion(s.source, source)) return std::string("resumed");
    if (delivered_with_queue(s.source, source)) return std::string("queued_message");
  }
  return std::nullopt;
}

void touch_run(store::Transaction& c, const std::string& run_id) {
  if (auto fresh = c.runs().get(run_id)) {
    detail::touch(*fresh);
    c.runs().update(*fresh);
  }
}

/// A managed resume: the message is the prompt of the parent's next session, after any
/// messages still queued for it (as a resume by hand would deliver them). Opens the
/// session (and its attempt) and audits run.resumed; returns the prompt.
std::string resume_parent(store::Transaction& c, core::Run& parent, const std::string& message,
                          const json::object& source, const core::ParentNotification& n,
                          const std::string& controller_id, const std::string& task_section_text) {
  std::string prompt = later_session_prompt(task_section_text, message);
  auto queued = c.queued_messages().list(parent.id);
  if (!queued.empty()) {
    prompt = detail::join_queued_texts(queued) + "\n\n" + prompt;
    c.queued_messages().remove_all(parent.id);
    parent.queued_message_count = 0;
  }
  json::object session_source = source;
  if (auto carried = detail::queued_session_source(queued); !carried.empty())
    session_source["queued"] = std::move(carried);
  detail::open_session(c, parent, prompt, controller_id, std::move(session_source));
  if (parent.frozen.backend != core::passive_backend) detail::open_attempt(c, parent);
  json::object resumed{{"sessionIndex", parent.session_count - 1},
                       {"backend", parent.frozen.backend},
                       {"source", "child_completion"},
                       {"childRunId", n.child_run_id},
                       {"childSessionIndex", n.child_session_index},
                       {"length", prompt.size()}};
  if (!queued.empty()) resumed["queuedMessageCount"] = queued.size();
  detail::save_with_audit(c, parent, "run.resumed", daemon_actor, std::move(resumed));
  return prompt;
}

}  // namespace

core::Result<int> ParentCompletionService::deliver(const std::string& child_id, bool at_startup) {
  // A read first: most changes are of runs that owe nobody anything.
  auto owes = db_.read([&](store::Transaction& c) -> core::Result<bool> {
    return !c.parent_notifications().pending(child_id).empty();
  });
  if (!owes) return owes.failure();
  if (!*owes) return 0;
  auto outcome = db_.write<DeliveryOutcome>([&](store::Transaction& c) -> core::Result<DeliveryOutcome> {
    DeliveryOutcome out;
    auto rows = c.parent_notifications().pending(child_id);
    if (rows.empty()) return out;
    auto child = c.runs().get(child_id);
    if (!child) return out;  // deleted: its rows went with it
    for (auto& n : rows) {
      auto session = c.sessions().get(child_id, n.child_session_index);
      if (!session || n.child_session_index < child->session_count - 1) {
        settle(c, n, "skipped", detail::reason_session_not_current, "", {{"currentSessionIndex", child->session_count - 1}});
        out.changed.push_back(child_id);
        continue;
      }
      if (!session->ended_at) {
        // Still running (or taken over after a restart): delivered when it ends.
        if (at_startup) {
          detail::append_audit(c, child_id, "parent_notification.kept_pending", daemon_actor,
                               {{"parentRunId", n.parent_run_id},
                                {"sessionIndex", n.child_session_index},
                                {"reason", detail::reason_child_session_not_terminal}});
          out.changed.push_back(child_id);
        }
        continue;
      }
      out.changed.push_back(child_id);
      // The session's start time tells it from a session of the same index before a reset.
      const json::object source = detail::child_completion_source(child_id, n.child_session_index, session->started_at);
      json::object data{{"status", session->status}};
      if (at_startup) data["recovered"] = true;
      auto parent = c.runs().get(n.parent_run_id);
      if (!parent) {
        settle(c, n, "skipped", detail::reason_parent_not_found, "", std::move(data));
        continue;
      }
      if (auto already = existing_delivery(c, parent->id, source)) {
        data["matchedSource"] = true;
        settle(c, n, "delivered", "", *already, std::move(data));
        ++out.delivered;
        continue;
      }
      if (parent->archived) {
        settle(c, n, "skipped", detail::reason_parent_archived, "", std::move(data));
        continue;
      }
      if (parent->damaged) {  // never acted on
        settle(c, n, "skipped", detail::reason_parent_not_resumable, "", std::move(data));
        continue;
      }
      ChildCompletion completion{child_id, child->name, n.child_session_index, session->status,
                                 session->end_reason, detail::session_transcript(c, child_id, n.child_session_index)};
      const std::string message = parent_completion_message(completion);
      const auto facts = core::facts_of(*parent);
      // A parent waiting for a member takes it with the start it waits for.
      if (!core::refusal(core::Operation::queue_message, facts) || c.run_starts().get(parent->id)) {
        data["messageId"] = queue_on_parent(c, *parent, message, source, child_id, n.child_session_index);
        settle(c, n, "delivered", "", "queued_message", std::move(data));
        out.changed.push_back(parent->id);
        ++out.delivered;
        continue;
      }
      if (parent->session_count == 0) {
        settle(c, n, "skipped", detail::reason_parent_not_started, "", std::move(data));
        continue;
      }
      auto refused = core::refusal(core::Operation::resume, facts);
      const bool backend = backends_.has(parent->frozen.backend);
      if (refused || !backend || !core::is_terminal(parent->status) ||
          !detail::check_dependencies_met(c, *parent, "resume")) {
        data["why"] = refused ? *refused : !backend ? "the parent's backend is not available" : "the parent cannot be resumed";
        settle(c, n, "skipped", detail::reason_parent_not_resumable, "", std::move(data));
        continue;
      }
      // Past the parent's child-resume rate: held on its queue, and one resume delivers
      // every completion held meanwhile once the rate allows (resume_held_completions).
      if (auto wait = detail::child_resume_wait(c, *parent, settings_.child_limits, core::now_ms())) {
        data["messageId"] = queue_on_parent(c, *parent, message, source, child_id, n.child_session_index);
        data["resumeInMs"] = wait->count();
        settle(c, n, "delivered", "", "held", std::move(data));
        out.changed.push_back(parent->id);
        out.hold = std::pair{parent->id, *wait};
        ++out.delivered;
        continue;
      }
      if (auto not_here = settings_.placement ? settings_.placement->why_not_here(c, *parent) : std::nullopt) {
        // Resumed where it fits: the completion waits on its queue for the member that claims it.
        data["messageId"] = queue_on_parent(c, *parent, message, source, child_id, n.child_session_index);
        data["waitingForMember"] = true;
        settle(c, n, "delivered", "", "queued_message", std::move(data));
        settings_.placement->wait_for_member(
            c, *parent, store::WaitingStart{parent->id, std::nullopt, "child_completion", daemon_actor.name, false,
                                            core::now_iso8601()},
            *not_here, daemon_actor);
        out.changed.push_back(parent->id);
        ++out.delivered;
        continue;
      }
      std::string prompt = resume_parent(c, *parent, message, source, n, settings_.controller_id,
                                         task_section(c, *parent, *settings_.task_prompt));
      data["parentSessionIndex"] = parent->session_count - 1;
      settle(c, n, "delivered", "", "resumed", std::move(data));
      out.changed.push_back(parent->id);
      ++out.delivered;
      if (parent->frozen.backend != core::passive_backend) {
        out.launch = *parent;
        out.prompt = std::move(prompt);
      }
    }
    // The child's revision moves with its notification (RunDetail.parentNotification).
    if (!out.changed.empty()) touch_run(c, child_id);
    return out;
  });
  if (!outcome) return outcome.failure();
  std::sort(outcome->changed.begin(), outcome->changed.end());
  outcome->changed.erase(std::unique(outcome->changed.begin(), outcome->changed.end()), outcome->changed.end());
  for (const auto& id : outcome->changed) bus_.run_changed(id);
  if (outcome->hold) held_resumes_->call_after(outcome->hold->first, outcome->hold->second);
  if (outcome->launch) {
    core::log_info("resumed a parent run with its child's completion",
                   {{"runId", outcome->launch->id}, {"childRunId", child_id}});
    runs_.launch_session(*outcome->launch, outcome->prompt);
  }
  return outcome->delivered;
}

ParentCompletionService::ParentCompletionService(store::Store& db, events::EventBus& bus, core::ThreadPool& pool,
                                                 const BackendCatalog& backends, RunStarts& runs,
                                                 ParentCompletionSettings settings)
    : db_(db),
      bus_(bus),
      pool_(pool),
      backends_(backends),
      runs_(runs),
      settings_(std::move(settings)),
      held_resumes_(std::make_unique<DelayedCalls>(pool, [this](const std::string& id) { resume_held(id); })) {}

ParentCompletionService::~ParentCompletionService() { stop(); }

void ParentCompletionService::stop() {
  if (watcher_) watcher_->stop();
  held_resumes_->stop();
}

core::Result<int> ParentCompletionService::start() {
  if (!watcher_)
    watcher_ = std::make_unique<RunChangeWatcher>(
        bus_, pool_, [this](const std::vector<std::string>& run_ids) { changed(run_ids); });
  auto children = db_.read([](store::Transaction& c) -> core::Result<std::vector<std::string>> {
    return c.parent_notifications().children_with_pending();
  });
  if (!children) return children.failure();
  // Completions held past a parent's resume rate when the last daemon stopped.
  auto holding = db_.read([](store::Transaction& c) -> core::Result<std::vector<std::string>> {
    std::vector<std::string> out;
    for (const auto& id : c.queued_messages().run_ids())
      for (const auto& m : c.queued_messages().list(id))
        if (detail::carries_child_completion(m.source)) {
          out.push_back(id);
          break;
        }
    return out;
  });
  if (holding)
    for (const auto& id : *holding) held_resumes_->call_after(id, std::chrono::milliseconds(0));
  int delivered = 0;
  for (const auto& id : *children) {
    auto done = deliver(id, true);
    if (!done) {
      core::log_error("delivering a parent-completion notification failed", {{"runId", id}, {"error", done.error().message}});
      continue;
    }
    delivered += *done;
  }
  return delivered;
}

}  // namespace agentry::engine

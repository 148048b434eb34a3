// Engine: reads. Each borrows a reader connection and holds one read transaction,
// so the parts of a view (run, tasks, sessions) come from the same snapshot.

#include "engine/engine.hpp"
#include "store/hook_audit_repository.hpp"
#include "store/attachment_repository.hpp"

#include "engine/dependencies.hpp"
#include "engine/mutation_support.hpp"
#include "events/projections.hpp"
#include "core/clock.hpp"
#include "store/dependency_repository.hpp"
#include "store/parent_notification_repository.hpp"
#include "store/notification_repository.hpp"
#include "store/queued_message_repository.hpp"
#include "store/schedule_repository.hpp"
#include "store/session_repository.hpp"
#include "store/task_repository.hpp"

#include <boost/json/parse.hpp>

namespace agentry::engine {
namespace {

/// Holds a read transaction so several SELECTs see one snapshot.
class ReadSnapshot {
 public:
  explicit ReadSnapshot(store::Connection& c) : c_(c) { c_.exec("BEGIN"); }
  ~ReadSnapshot() {
    try {
      c_.exec("COMMIT");
    } catch (const store::StoreError&) {
      // A read transaction has nothing to lose; the connection stays usable.
    }
  }

 private:
  store::Connection& c_;
};

}  // namespace

core::Result<RunView> Engine::view(const std::string& run_id) {
  auto view = db_.read([&](store::Connection& c) -> core::Result<RunView> {
    ReadSnapshot snapshot(c);
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    RunView v{std::move(*run), {}, {}, {}};
    v.run.queued_messages = store::QueuedMessageRepository::list(c, run_id);
    v.run.parent_notification = store::ParentNotificationRepository::latest(c, run_id);
    for (auto& e : store::NotificationRepository::list_for_run(c, run_id)) {
      core::NotificationDelivery n;
      n.id = e.id;
      n.event = std::move(e.event);
      boost::system::error_code ec;
      auto target = core::notify_target_from_json(boost::json::parse(e.target_json, ec));
      n.target = !ec && target ? core::redacted_target(*target) : "unknown";
      n.idempotency_key = std::move(e.idempotency_key);
      n.state = std::move(e.state);
      n.attempts = e.attempts;
      n.last_error = std::move(e.last_error);
      n.created_at = std::move(e.created_at);
      n.delivered_at = std::move(e.delivered_at);
      if (n.state == "pending") n.next_attempt_at = core::format_iso8601(e.next_attempt_ms);
      v.run.notifications.push_back(std::move(n));
    }
    store::ScheduleRepository::attach(c, v.run);
    v.tasks = store::TaskRepository::list(c, run_id);
    v.sessions = store::SessionRepository::list(c, run_id);
    v.attempts = store::SessionRepository::list_attempts(c, run_id);
    v.run.dependencies = detail::dependencies_of(c, run_id);
    v.run.dependents = detail::dependents_of(c, v.run);
    v.run.attachments = store::AttachmentRepository::list_for_run(c, run_id);
    v.run.hook_audits = store::HookAuditRepository::latest(c, run_id);
    return v;
  });
  // Pending approvals live with the attempt that asked, not in the store.
  if (view)
    if (auto live = live_.find(run_id)) view->run.pending_approvals = live->pending_approvals();
  return view;
}

core::Result<RunListView> Engine::list(const store::RunQuery& query) {
  return db_.read([&](store::Connection& c) -> core::Result<RunListView> {
    ReadSnapshot snapshot(c);
    auto page = store::RunRepository::list(c, query);
    store::ScheduleRepository::attach(c, page.runs);
    std::vector<std::string> ids;
    ids.reserve(page.runs.size());
    for (const auto& r : page.runs) ids.push_back(r.id);
    auto tallies = store::TaskRepository::tallies(c, ids);
    auto sessions = store::SessionRepository::latest(c, ids);
    // Only runs that have dependencies cost more than this one statement.
    auto dependencies = store::DependencyRepository::list_many(c, ids);
    RunListView out;
    out.next_cursor = page.next_cursor;
    out.summaries.reserve(page.runs.size());
    for (auto& r : page.runs) {
      if (auto d = dependencies.find(r.id); d != dependencies.end())
        r.dependencies = detail::evaluate_dependencies(c, d->second);
      auto t = tallies.find(r.id);
      auto s = sessions.find(r.id);
      out.summaries.push_back(events::run_summary(r, t == tallies.end() ? core::TaskTally{} : t->second,
                                                  s == sessions.end() ? std::nullopt
                                                                      : std::optional<core::Session>(s->second)));
    }
    return out;
  });
}

core::Result<std::vector<core::AuditEvent>> Engine::audit(const std::string& run_id, const store::EventPageQuery& q) {
  return db_.read([&](store::Connection& c) -> core::Result<std::vector<core::AuditEvent>> {
    ReadSnapshot snapshot(c);
    if (auto run = detail::load_run(c, run_id); !run) return run.failure();
    return store::AuditRepository::list(c, run_id, q);
  });
}

core::Result<std::vector<core::TimelineEvent>> Engine::timeline(const std::string& run_id,
                                                                const store::EventPageQuery& q) {
  return db_.read([&](store::Connection& c) -> core::Result<std::vector<core::TimelineEvent>> {
    ReadSnapshot snapshot(c);
    if (auto run = detail::load_run(c, run_id); !run) return run.failure();
    return store::TimelineRepository::list(c, run_id, q);
  });
}

core::Result<std::int64_t> Engine::timeline_last_cursor(const std::string& run_id) {
  return db_.read([&](store::Connection& c) -> core::Result<std::int64_t> {
    ReadSnapshot snapshot(c);
    if (!store::RunRepository::exists(c, run_id))
      return core::fail(core::ErrorCode::not_found, "no run with id '" + run_id + "'", {{"runId", run_id}});
    return store::TimelineRepository::last_cursor(c, run_id);
  });
}

}  // namespace agentry::engine

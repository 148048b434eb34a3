// Engine: reads. Each is one store read, which sees one snapshot, so the parts of a
// view (run, tasks, sessions) agree.

#include "engine/engine.hpp"
#include "store/approval_repository.hpp"
#include "store/hook_audit_repository.hpp"
#include "store/attachment_repository.hpp"

#include "engine/dependencies/dependency_checks.hpp"
#include "engine/mutation_support.hpp"
#include "engine/hooks/hook_runner.hpp"
#include "events/projections.hpp"
#include "definitions/prices.hpp"
#include "core/clock.hpp"
#include "store/daemon_repository.hpp"
#include "store/dependency_repository.hpp"
#include "store/lease_repository.hpp"
#include "store/parent_notification_repository.hpp"
#include "store/notification_repository.hpp"
#include "store/queued_message_repository.hpp"
#include "store/schedule_repository.hpp"
#include "store/session_repository.hpp"
#include "store/task_repository.hpp"
#include "store/event_repository.hpp"
#include "store/run_repository.hpp"
#include "store/store.hpp"

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>

namespace agentry::engine {
core::Result<RunView> Engine::view(const std::string& run_id) {
  definitions::refresh_current_prices(config_.config_dir);  // costs are priced as views render
  auto view = db_.read([&](store::Transaction& c) -> core::Result<RunView> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    RunView v{std::move(*run), {}, {}, {}};
    v.run.queued_messages = c.queued_messages().list(run_id);
    v.run.parent_notification = c.parent_notifications().latest(run_id);
    for (auto& e : c.outbox().list_for_run(run_id)) {
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
    c.schedules().attach(v.run);
    v.tasks = c.tasks().list(run_id);
    v.sessions = c.sessions().list(run_id);
    v.attempts = c.sessions().list_attempts(run_id);
    v.run.dependencies = detail::dependencies_of(c, run_id);
    v.run.dependents = detail::dependents_of(c, v.run);
    v.run.attachments = c.attachments().list_for_run(run_id);
    v.run.hook_audits = c.hook_audits().latest(run_id);
    v.run.hook_data = run_hook_data(c, run_id);
    v.run.pending_approvals = c.approvals().list(run_id);
    if (auto lease = c.leases().get(run_id); lease && lease->held && v.run.status == core::RunStatus::running) {
      core::RunOwner owner{lease->owner, lease->owner, lease->epoch, core::format_iso8601(lease->expires_ms)};
      for (const auto& member : c.daemons().list())
        if (member.id == lease->owner) owner.name = member.name;
      v.run.owner = std::move(owner);
    }
    return v;
  });
  return view;
}

std::optional<std::string> Engine::holder_url(const std::string& run_id) {
  using Url = std::optional<std::string>;
  auto url = db_.read([&](store::Transaction& c) -> core::Result<Url> {
    auto lease = c.leases().get(run_id);
    if (!lease || !lease->held || lease->expired || lease->owner == config_.controller_id) return Url();
    for (const auto& member : c.daemons().list())
      if (member.id == lease->owner && member.heartbeat_age_ms <= config_.lease_ttl.count() &&
          !member.advertise_url.empty())
        return Url(member.advertise_url);
    return Url();
  });
  return url ? *url : std::nullopt;
}

core::Result<RunListView> Engine::list(const core::RunQuery& query) {
  definitions::refresh_current_prices(config_.config_dir);
  return db_.read([&](store::Transaction& c) -> core::Result<RunListView> {
    auto page = c.runs().list(query);
    c.schedules().attach(page.runs);
    std::vector<std::string> ids;
    ids.reserve(page.runs.size());
    for (const auto& r : page.runs) ids.push_back(r.id);
    auto tallies = c.tasks().tallies(ids);
    auto sessions = c.sessions().latest(ids);
    // Only runs that have dependencies cost more than this one statement.
    auto dependencies = c.dependencies().list_many(ids);
    RunListView out;
    out.next_cursor = page.next_cursor;
    out.summaries.reserve(page.runs.size());
    // One resource for the page: its hundreds of small strings and objects are carved
    // from a few blocks and freed with the answer. The first block allows about 3 KB a
    // summary; the resource adds larger blocks past it.
    auto storage = boost::json::make_shared_resource<boost::json::monotonic_resource>(page.runs.size() * 3072 + 1024);
    for (auto& r : page.runs) {
      if (auto d = dependencies.find(r.id); d != dependencies.end())
        r.dependencies = detail::evaluate_dependencies(c, d->second);
      auto t = tallies.find(r.id);
      auto s = sessions.find(r.id);
      out.summaries.push_back(events::run_summary(r, t == tallies.end() ? core::TaskTally{} : t->second,
                                                  s == sessions.end() ? std::nullopt
                                                                      : std::optional<core::Session>(s->second),
                                                  storage));
    }
    return out;
  });
}

core::Result<std::vector<core::AuditEvent>> Engine::audit(const std::string& run_id, const core::EventPageQuery& q) {
  return db_.read([&](store::Transaction& c) -> core::Result<std::vector<core::AuditEvent>> {
    if (auto run = detail::load_run(c, run_id); !run) return run.failure();
    return c.audit().list(run_id, q);
  });
}

core::Result<std::vector<core::TimelineEvent>> Engine::timeline(const std::string& run_id,
                                                                const core::EventPageQuery& q) {
  return db_.read([&](store::Transaction& c) -> core::Result<std::vector<core::TimelineEvent>> {
    if (auto run = detail::load_run(c, run_id); !run) return run.failure();
    return c.timeline().list(run_id, q);
  });
}

core::Result<std::size_t> Engine::visit_timeline(const std::string& run_id, std::int64_t after, std::int64_t upto,
                                                 std::size_t limit, const core::TimelineEventVisitor& visit) {
  return db_.read([&](store::Transaction& c) -> core::Result<std::size_t> {
    if (!c.runs().exists(run_id))
      return core::fail(core::ErrorCode::not_found, "no run with id '" + run_id + "'", {{"runId", run_id}});
    return c.timeline().visit(run_id, after, upto, limit, visit);
  });
}

core::Result<std::int64_t> Engine::timeline_last_cursor(const std::string& run_id) {
  return db_.read([&](store::Transaction& c) -> core::Result<std::int64_t> {
    if (!c.runs().exists(run_id))
      return core::fail(core::ErrorCode::not_found, "no run with id '" + run_id + "'", {{"runId", run_id}});
    return c.timeline().last_cursor(run_id);
  });
}

}  // namespace agentry::engine

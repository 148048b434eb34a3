#include "engine/hooks/after_exit.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "engine/mutation_support.hpp"
#include "events/event_bus.hpp"
#include "store/store.hpp"
#include "store/notification_repository.hpp"
#include "store/run_repository.hpp"
#include "store/session_repository.hpp"

#include <boost/json.hpp>

namespace agentry::engine {
namespace json = boost::json;

struct HookJobsState {
  HookJobsState(HookServices s, events::EventBus& b) : services(std::move(s)), bus(b) {}
  HookServices services;
  events::EventBus& bus;
  std::mutex mutex;
  std::condition_variable idle;
  bool gone = false;  // stop() returned: jobs touch nothing any more
  int pending = 0;    // posted and not finished
  std::multimap<std::string, std::shared_ptr<HookCancel>> scopes;  // run id -> cancellation
  HookCancel shutdown;
};

namespace {

constexpr const char* stopping_reason = "agentry is stopping";

/// The held run.finished rows of the session become pending. When the run is still at
/// that session's end, their body says its status and reason as they are now (a hook
/// may have turned success into blocked, or renamed the run).
void release_held(store::Transaction& c, const core::Run& run, int session_index, bool current) {
  for (auto& row : c.outbox().list_for_run(run.id)) {
    if (row.state != "held") continue;
    boost::system::error_code ec;
    auto body = json::parse(row.payload_json, ec);
    json::object* brief = nullptr;
    if (!ec && body.is_object())
      if (auto* r = body.as_object().if_contains("run")) brief = r->if_object();
    if (!brief) {
      c.outbox().release(row.id, row.payload_json, core::now_ms());
      continue;
    }
    auto* index = brief->if_contains("sessionIndex");
    if (!index || !index->is_int64() || index->as_int64() != session_index) continue;  // another end's
    if (current) {
      (*brief)["status"] = core::to_string(run.status);
      (*brief)["statusReason"] = run.status_reason;
      (*brief)["name"] = run.name ? json::value(*run.name) : json::value(nullptr);
    }
    c.outbox().release(row.id, json::serialize(body), core::now_ms());
  }
}

}  // namespace

void settle_session_end(const SessionEnd& end, const HookServices& services, events::EventBus& bus) {
  // The run as it is now (status, name), as the hooks must see it.
  auto run = services.db.read([&](store::Transaction& c) { return detail::load_run(c, end.run_id); });
  if (!run) return;  // deleted meanwhile: its notifications went with it
  HookPhaseResult result;
  if (has_hooks(*run, core::HookPhase::after_exit))
    result = run_hooks(*run,
                       HookInvocation{core::HookPhase::after_exit,
                                      {{"status", end.status}},
                                      {{"status", end.status}, {"sessionIndex", end.session_index}},
                                      std::nullopt,
                                      {},
                                      end.session_index,
                                      std::nullopt},
                       services);
  bool changed = false;
  auto written = services.db.write<bool>([&](store::Transaction& c) -> core::Result<bool> {
    changed = false;
    auto fresh = detail::load_run(c, end.run_id);
    if (!fresh) return false;
    changed = record_hook_results(c, *fresh, result);
    // Still at the end of that session (no later one opened meanwhile)?
    const bool current = fresh->session_count - 1 == end.session_index && fresh->status != core::RunStatus::running;
    // A run that ended in success but a hook refuses (require-children-success) is
    // blocked instead, with the hook's reason: on the run and on its session's record.
    if (result.stop && current && fresh->status == core::RunStatus::success) {
      fresh->status = core::RunStatus::blocked;
      fresh->status_reason = *result.stop;
      if (auto session = c.sessions().get(fresh->id, end.session_index)) {
        session->status = std::string(core::to_string(core::RunStatus::blocked));
        session->end_reason = *result.stop;
        c.sessions().update(*session);
      }
      detail::append_audit(c, fresh->id, "run.blocked_by_hook", Actor{"hook"},
                           {{"reason", *result.stop}, {"sessionIndex", end.session_index}});
      detail::touch(*fresh);
      changed = true;
    }
    release_held(c, *fresh, end.session_index, current);
    if (changed) c.runs().update(*fresh);
    return true;
  });
  if (!written) {
    core::log_error("cannot record afterExit hooks", {{"runId", end.run_id}, {"error", written.error().message}});
    return;
  }
  if (changed || result.any()) bus.run_changed(end.run_id);
}

HookJobs::HookJobs(core::BlockingPool& pool, HookServices services, events::EventBus& bus)
    : pool_(pool), state_(std::make_shared<HookJobsState>(std::move(services), bus)) {}

HookJobs::~HookJobs() { stop(); }

void HookJobs::after_session_end(SessionEnd end) {
  {
    std::lock_guard lock(state_->mutex);
    if (state_->gone) {
      // The engine is going: the next serving daemon releases the held notification.
      core::log_warn("afterExit hooks not run: agentry is stopping", {{"runId", end.run_id}});
      return;
    }
    ++state_->pending;
  }
  pool_.post([state = state_, end = std::move(end)] {
    bool gone = false;
    {
      std::lock_guard lock(state->mutex);
      gone = state->gone;  // stop() gave up waiting: the services may be gone
    }
    if (!gone) {
      // After a shutdown began this still runs, its hooks audited as cancelled, so the
      // held notification is released now rather than by the next daemon.
      HookServices services = state->services;
      services.cancelled = [state] { return state->shutdown.reason(); };
      settle_session_end(end, services, state->bus);
    }
    {
      std::lock_guard lock(state->mutex);
      --state->pending;
    }
    state->idle.notify_all();
  });
}

HookJobs::Scope::Scope(HookJobs& jobs, std::string run_id)
    : state_(jobs.state_), run_id_(std::move(run_id)), cancel_(std::make_shared<HookCancel>()) {
  std::lock_guard lock(state_->mutex);
  state_->scopes.emplace(run_id_, cancel_);
}

HookJobs::Scope::~Scope() {
  std::lock_guard lock(state_->mutex);
  auto [from, to] = state_->scopes.equal_range(run_id_);
  for (auto it = from; it != to; ++it)
    if (it->second == cancel_) {
      state_->scopes.erase(it);
      break;
    }
}

std::function<std::optional<std::string>()> HookJobs::Scope::cancelled() const {
  return [state = state_, cancel = cancel_]() -> std::optional<std::string> {
    if (auto why = cancel->reason()) return why;
    return state->shutdown.reason();
  };
}

void HookJobs::cancel_run(const std::string& run_id, const std::string& reason) {
  std::lock_guard lock(state_->mutex);
  auto [from, to] = state_->scopes.equal_range(run_id);
  for (auto it = from; it != to; ++it) it->second->cancel(reason);
}

void HookJobs::cancel_all() { state_->shutdown.cancel(stopping_reason); }

void HookJobs::stop() {
  cancel_all();
  std::unique_lock lock(state_->mutex);
  // Their hooks are killed or never start: what is left is one write each.
  state_->idle.wait_for(lock, std::chrono::seconds(10), [&] { return state_->pending == 0; });
  state_->gone = true;
}

}  // namespace agentry::engine

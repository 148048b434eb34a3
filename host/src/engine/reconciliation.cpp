// Engine: reconciling runs whose controller is gone. A run persisted as running was
// being driven by a controller (a daemon or an embedded CLI process). If that process is
// gone, either its agent may still be working without it (a backend with ext/detach.h,
// such as Codex over ws/uds): then this process takes the run over, and the backend
// reports whether it could (audit run.controller_reconciled, written as its report is).
// Or nobody will ever finish the run: it becomes `error` with an audit record saying why.
// Passive runs have no controller and stay running.
//
// It happens at startup, before anyone is served, and again now and then while the daemon
// serves (reconcile_stale_owners), for the runs of an embedded CLI that went away since.

#include "engine/engine.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "engine/controllers.hpp"
#include "engine/leases/run_leases.hpp"
#include "engine/mutation_support.hpp"
#include "store/event_repository.hpp"
#include "store/lease_repository.hpp"
#include "store/notification_repository.hpp"
#include "store/session_repository.hpp"
#include "store/run_repository.hpp"
#include "store/store.hpp"

namespace agentry::engine {
namespace {

enum class Verdict { untouched, finalized, adopt };

// The attempt the gone controller was driving, still open in the store.
bool has_open_attempt(store::Transaction& c, const core::Run& run) {
  for (const auto& attempt : c.sessions().list_attempts(run.id))
    if (attempt.number == run.attempt_count && !attempt.ended_at) return true;
  return false;
}

/// A run ended here for the process that drove it: its open attempt ends as an error, and
/// the timeline says so (attempt.finished, run.finished), as when an attempt ends live,
/// so that whoever follows the stream sees the end.
void end_on_timeline(store::Transaction& c, const core::Run& run, const std::string& reason) {
  auto event = [&](std::string kind, boost::json::object payload) {
    core::TimelineEvent e;
    e.run_id = run.id;
    e.kind = std::move(kind);
    e.attempt_number = run.attempt_count > 0 ? std::optional<int>(run.attempt_count) : std::nullopt;
    e.at = core::now_time_text();
    e.payload = std::move(payload);
    c.timeline().append(e);
  };
  for (auto& attempt : c.sessions().list_attempts(run.id)) {
    if (attempt.number != run.attempt_count || attempt.ended_at) continue;
    attempt.ended_at = core::now_iso8601();
    attempt.outcome = "error";
    c.sessions().update_attempt(attempt);
    event("attempt.finished", {{"outcome", "error"}, {"message", reason}, {"forced", true}});
  }
  event("run.finished", {{"status", "error"}, {"reason", reason}});
}

// What the open attempt was to say: a retry's nudge, else its session's prompt.
std::string attempt_prompt(store::Transaction& c, const core::Run& run) {
  if (auto started = c.timeline().last_of_attempt(run.id, "attempt.started", run.attempt_count))
    if (auto* nudge = started->payload.if_contains("prompt"); nudge && nudge->is_string())
      return std::string(nudge->as_string());
  auto session = c.sessions().get(run.id, run.session_count - 1);
  return session ? session->prompt : std::string();
}

// The attempt's last checkpoint (a Codex thread and turn id), so the backend finds its work.
boost::json::value attempt_checkpoint(store::Transaction& c, const core::Run& run) {
  auto checkpoint = c.timeline().last_of_attempt(run.id, "session.checkpoint", run.attempt_count);
  return checkpoint ? boost::json::value(checkpoint->payload) : boost::json::value(nullptr);
}

}  // namespace

core::Result<int> Engine::reconcile_after_restart() {
  // run.finished notifications held for afterExit hooks that a stopped or crashed daemon
  // never ran (engine/hooks/after_exit.hpp) go out as they were.
  auto released = db_.write<int>([](store::Transaction& c) -> core::Result<int> {
    return c.outbox().release_all_held(core::now_ms());
  });
  if (!released) return released.failure();
  if (*released > 0) core::log_warn("released notifications held for afterExit hooks that never ran",
                                    {{"count", std::to_string(*released)}});
  auto ids = db_.read([&](store::Transaction& c) -> core::Result<std::vector<std::string>> {
    return c.runs().ids_with_status(core::RunStatus::running);
  });
  if (!ids) return ids.failure();
  int finalized = 0;
  for (const auto& id : *ids) {
    auto done = reconcile_run(id, /*at_startup=*/true);
    if (!done) return done.failure();
    finalized += *done ? 1 : 0;
  }
  return finalized;
}

core::Result<int> Engine::reconcile_stale_owners() {
  const bool shared = db_.shared();
  // One statement over every running run and its lease: nearly every one is this
  // process's own or has a live controller, and a sweep that finds nothing to do writes
  // nothing (reconcile_run decides again, on the writer).
  auto ids = db_.read([&](store::Transaction& c) -> core::Result<std::vector<std::string>> {
    std::vector<std::string> out;
    for (const auto& run : c.leases().driven_runs()) {
      if (run.controller_id == config_.controller_id) {
        // Ours, unless its lease ran out with no live session here to renew it.
        const auto& lease = run.lease;
        if (!shared || !lease || !lease->held || !lease->expired || lease->owner != config_.controller_id ||
            live_.find(run.run_id))
          continue;
      } else if (driven_elsewhere(run, config_.controller_id, shared)) {
        continue;
      }
      out.push_back(run.run_id);
    }
    return out;
  });
  if (!ids) return ids.failure();
  int finalized = 0;
  for (const auto& id : *ids) {
    auto done = reconcile_run(id, /*at_startup=*/false);
    if (!done) {
      core::log_error("reconciling a run whose controller is gone failed", {{"runId", id}, {"error", done.error().message}});
      continue;
    }
    finalized += *done ? 1 : 0;
  }
  return finalized;
}

core::Result<bool> Engine::reconcile_run(const std::string& id, bool at_startup) {
  const Actor daemon{"daemon"};
  core::Run adoptee;
  std::optional<core::Run> finalized_run;
  std::string prompt, previous_controller;
  boost::json::value checkpoint;
  // The decision is made again on the writer, against the run as it is now: it may have
  // ended, or been taken over, since it was listed.
  auto verdict = db_.write<Verdict>([&](store::Transaction& c) -> core::Result<Verdict> {
    auto run = detail::load_run(c, id);
    if (!run || run->status != core::RunStatus::running) return Verdict::untouched;
    if (run->frozen.backend == core::passive_backend) return Verdict::untouched;
    boost::json::object data{{"backend", run->frozen.backend},
                             {"controllerId", run->controller_id},
                             {"backendSessionId", run->backend_session_id ? boost::json::value(*run->backend_session_id)
                                                                          : boost::json::value(nullptr)}};
    if (!at_startup) data["trigger"] = "sweep";
    const auto lease = c.leases().get(id);
    std::optional<std::int64_t> taken;  // the epoch this process took the run's expired lease at
    if (db_.shared() && lease && lease->held && lease->owner == run->controller_id && lease_holder_gone(*lease) &&
        !(lease->owner == config_.controller_id && live_.find(id))) {
      // Its controller fell silent past its lease (a member that died, stopped or was cut
      // off), or died on this host: taken over here, exactly once, whoever else looks.
      taken = c.leases().take_over(id, lease->owner, lease->epoch, config_.controller_id,
                                   lease_times().validity.count(), /*only_if_expired=*/lease->expired);
      if (!taken) return Verdict::untouched;
      detail::append_audit(c, id, "run.taken_over", daemon,
                           {{"fromDaemon", lease->owner}, {"toDaemon", config_.controller_id}, {"epoch", *taken}});
      data["reason"] = lease->expired ? "lease_expired" : "controller_gone";
    } else if (run->controller_id == config_.controller_id) {
      // At startup this is an earlier life of this id (nothing is live yet); later, it is
      // a run this process drives.
      if (!at_startup) return Verdict::untouched;
    } else if (driven_elsewhere(c, *run, config_.controller_id, db_.shared())) {
      // Recorded once, at startup; a sweep that leaves the run alone says nothing.
      if (!at_startup) return Verdict::untouched;
      data["decision"] = "skipped_live_owner";
      const bool by_lease = db_.shared() && lease && lease->held && lease->owner == run->controller_id;
      data["reason"] = by_lease ? "owner_lease_held" : "owner_pid_alive";
      detail::append_audit(c, id, "run.controller_reconciled", daemon, std::move(data));
      return Verdict::untouched;
    }
    if (live_.can_adopt(run->frozen.backend) && run->backend_session_id && has_open_attempt(c, *run)) {
      previous_controller = run->controller_id.empty() ? "detached" : run->controller_id;
      run->controller_id = config_.controller_id;
      c.runs().update(*run);
      if (!taken) take_run_lease(c, id, config_.controller_id);
      adoptee = *run;
      prompt = attempt_prompt(c, *run);
      checkpoint = attempt_checkpoint(c, *run);
      return Verdict::adopt;
    }
    const std::string driver = run->controller_id.empty() ? std::string("unknown") : run->controller_id;
    std::string reason = taken ? "the daemon driving this run (" + driver + ") " +
                                     (data["reason"] == "lease_expired" ? "stopped renewing its lease"
                                                                        : "is gone") +
                                     "; " + config_.controller_id + " took the run over"
                               : "the process driving this run (" + driver + ") is gone; " +
                                     (at_startup ? "agentry restarted while the run was active"
                                                 : "it stopped while the run was active");
    end_on_timeline(c, *run, reason);
    detail::close_session(c, *run, core::RunStatus::error, reason, "restart");
    data["decision"] = "finalized";
    if (!taken) data["reason"] = "controller_gone";
    data["status"] = "error";
    detail::save_with_audit(c, *run, "run.controller_reconciled", daemon, std::move(data));
    finalized_run = *run;
    return Verdict::finalized;
  });
  if (!verdict) return verdict.failure();
  if (*verdict == Verdict::finalized) {
    bus_.run_changed(id);
    if (finalized_run) session_ended(*finalized_run, finalized_run->session_count - 1);
    core::log_warn("finalized orphaned run", {{"runId", id}, {"status", "error"}});
    return true;
  }
  if (*verdict == Verdict::adopt) {
    core::log_info("taking over a run whose agent may still be working",
                   {{"runId", id}, {"backend", adoptee.frozen.backend}});
    live_.adopt(adoptee, prompt, checkpoint, previous_controller);
  }
  return false;
}

}  // namespace agentry::engine

// LiveRun, after an attempt: the steps that follow the batch that ended it (diffstat,
// afterAttempt and afterExit hooks, then the next attempt or the end of the session),
// and how a phase's hooks run off the strand and are recorded on it.

#include "engine/live/live_run.hpp"

#include "core/log.hpp"
#include "engine/hooks/after_exit.hpp"
#include "engine/mutation_support.hpp"
#include "engine/workspace_baseline/workspace_baseline.hpp"
#include "events/event_bus.hpp"
#include "store/lease_repository.hpp"
#include "store/run_repository.hpp"
#include "store/session_repository.hpp"
#include "store/store.hpp"

#include <boost/json.hpp>

namespace agentry::engine {
namespace json = boost::json;

// On the strand, after the batch that ended an attempt committed. What follows, in this
// order: the run's diffstat, its afterAttempt hooks, its afterExit hooks, then the next
// attempt or the end of the session. Each blocking step runs off the strand, which
// runs nothing else of this run until the step is back (core::Strand::run_blocking).
void LiveRun::after_attempt(std::shared_ptr<BatchOutcome> outcome) {
  if (!outcome->session_ended && !outcome->next_attempt) {
    after_attempt_hooks(std::move(outcome));
    return;
  }
  off_strand([&db = services_.db, &bus = services_.bus, run = spec_.run] { refresh_workspace_diffstat(db, bus, run); },
             [outcome](LiveRun& self) {
               self.explain_container_failure(outcome, [](LiveRun& again, std::shared_ptr<BatchOutcome> o) {
                 again.after_attempt_hooks(std::move(o));
               });
             });
}

void LiveRun::after_attempt_hooks(std::shared_ptr<BatchOutcome> outcome) {
  if (!outcome->attempt_ended || outcome->detached || outcome->after_attempt_hooks_ran ||
      !has_hooks(spec_.run, core::HookPhase::after_attempt)) {
    if (outcome->decision_pending) conclude_deferred(std::move(outcome), HookPhaseResult{});
    else after_exit_hooks(std::move(outcome));
    return;
  }
  const bool first_attempt = attempt_.attempt_number == spec_.attempt_number;
  run_phase_hooks(HookInvocation{core::HookPhase::after_attempt,
                                 {{"attempt", first_attempt ? "first" : "retry"},
                                  {"session", spec_.session_index == 0 ? "first" : "resume"},
                                  {"outcome", outcome->attempt_outcome}},
                                 {{"attempt", json::object{{"number", attempt_.attempt_number},
                                                           {"sessionIndex", spec_.session_index},
                                                           {"outcome", outcome->attempt_outcome}}}},
                                 std::nullopt,
                                 {},
                                 spec_.session_index,
                                 attempt_.attempt_number},
                  std::nullopt, [outcome](LiveRun& self, const HookPhaseResult& result) {
                    if (outcome->decision_pending) self.conclude_deferred(outcome, result);
                    else self.after_exit_hooks(outcome);
                  });
}

// On the strand, once the afterAttempt hooks of an attempt whose decision waited for them
// ran: the decision, in its own write, then the steps of any decided attempt (diffstat,
// afterExit hooks, the next attempt or the end), the afterAttempt hooks not again.
void LiveRun::conclude_deferred(std::shared_ptr<BatchOutcome> outcome, const HookPhaseResult& hooks) {
  if (fenced_) return;
  AttemptContext attempt = attempt_;
  if (services_.stopping && services_.stopping->load()) attempt.shutdown_requested = true;
  // A gate's stop means nothing here (afterAttempt does not gate): what it asked still counts.
  const AfterAttemptAsk ask{hooks.reinvoke, hooks.prompt};
  auto concluded = services_.db.write<BatchOutcome>([&](store::Transaction& c) -> core::Result<BatchOutcome> {
    return conclude_deferred_attempt(c, attempt, outcome->attempt_outcome, outcome->attempt_message, ask);
  });
  if (!concluded) {
    core::log_error("cannot record what follows an attempt", {{"runId", run_id()}, {"error", concluded.error().message}});
    mark_finished(std::nullopt);
    return;
  }
  if (concluded->fenced) {
    fence("another controller took the run over (its lease has a later epoch)");
    return;
  }
  services_.bus.run_changed(run_id());
  concluded->after_attempt_hooks_ran = true;
  after_attempt(std::make_shared<BatchOutcome>(std::move(*concluded)));
}

// afterExit, and the run, session and notification agreeing on the end
// (engine/hooks/after_exit.hpp), before a queued-message session takes over.
void LiveRun::after_exit_hooks(std::shared_ptr<BatchOutcome> outcome) {
  if (!outcome->session_ended || outcome->detached || outcome->ended_status.empty() ||
      !has_hooks(spec_.run, core::HookPhase::after_exit)) {
    follow_attempt(std::move(outcome));
    return;
  }
  off_strand(
      [this, end = SessionEnd{spec_.run.id, spec_.session_index, outcome->ended_status}] {
        settle_session_end(end, hook_services(false), services_.bus);
      },
      [outcome](LiveRun& self) { self.follow_attempt(outcome); });
}

void LiveRun::follow_attempt(std::shared_ptr<BatchOutcome> outcome) {
  if (outcome->session_ended) {
    mark_finished(std::move(outcome->next_session));
  } else if (outcome->next_attempt) {
    // The store has opened the next attempt; start it on the same instance.
    timeout_timer_.cancel();
    attempt_.attempt_number = outcome->next_attempt->attempt_number;
    attempt_.timeout_message.reset();
    attempt_.budget_message.reset();
    attempt_.adopting = false;  // the next attempt is a turn of our own
    spec_.run.backend_session_id = outcome->next_attempt->resume_token;
    start_attempt(outcome->next_attempt->prompt);
  }
}

HookServices LiveRun::hook_services(bool heed_abort) const {
  HookServices services{services_.db, services_.state_dir, services_.attachments};
  services.cancelled = [this, heed_abort]() -> std::optional<std::string> {
    if (heed_abort)
      if (auto why = hook_cancel_.reason()) return why;
    if (services_.stopping && services_.stopping->load()) return std::string("agentry is stopping");
    return std::nullopt;
  };
  return services;
}

void LiveRun::end_for_cancelled_hook(const std::string& message) {
  // interrupt() has only queued its own work behind this on the strand: say here what it
  // will say, so the attempt ends as the abort or shutdown it was.
  if (hook_cancel_by_user_) attempt_.abort_requested = true;
  else attempt_.shutdown_requested = true;
  // The run's reason is the abort's (or the shutdown's), as when no hook was running.
  end_by_host("interrupted", hook_cancel_.reason().value_or(message));
}

void LiveRun::end_for_stopping_hook(const HookPhaseResult& result) {
  if (result.cancelled) end_for_cancelled_hook(*result.stop);
  else end_by_host("error", *result.stop);
}

void LiveRun::run_phase_hooks(HookInvocation invocation, std::optional<int> prompt_session, HooksDone then) {
  auto result = std::make_shared<HookPhaseResult>();
  off_strand(
      [this, result, invocation = std::move(invocation), fallback = spec_.run] {
        // The run as it is now (status, name), not as it was at launch.
        auto current = services_.db.read([&](store::Transaction& c) { return detail::load_run(c, fallback.id); });
        *result = run_hooks(current ? *current : fallback, invocation, hook_services(true));
      },
      [result, prompt_session, then = std::move(then)](LiveRun& self) {
        self.record_phase_hooks(*result, prompt_session);
        then(self, *result);
      });
}

void LiveRun::record_phase_hooks(const HookPhaseResult& result, std::optional<int> prompt_session) {
  if (!result.any() || fenced_) return;
  std::optional<core::Run> saved;
  auto written = services_.db.write<bool>([&](store::Transaction& c) -> core::Result<bool> {
    if (!c.leases().hold(run_id(), attempt_.controller_id, attempt_.lease_epoch)) return false;
    auto fresh = detail::load_run(c, run_id());
    if (!fresh) return false;
    bool changed = record_hook_results(c, *fresh, result);
    // The session's record shows the prompt its agent was actually given.
    if (prompt_session && result.prompt && !result.stop)
      if (auto session = c.sessions().get(run_id(), *prompt_session); session) {
        session->prompt = *result.prompt;
        c.sessions().update(*session);
        detail::append_audit(c, run_id(), "session.prompt_rewritten", Actor{"hook"},
                             {{"sessionIndex", *prompt_session}, {"length", result.prompt->size()}});
        if (!changed) detail::touch(*fresh);
        changed = true;
      }
    if (changed) c.runs().update(*fresh);
    saved = *fresh;
    return true;
  });
  if (!written) core::log_error("cannot record hook results", {{"runId", run_id()}, {"error", written.error().message}});
  if (saved) {
    spec_.run.cwd = saved->cwd;
    spec_.run.repo_root = saved->repo_root;
    spec_.run.name = saved->name;
    spec_.run.note = saved->note;
    spec_.run.pinned = saved->pinned;
  }
  services_.bus.run_changed(run_id());
}

}  // namespace agentry::engine

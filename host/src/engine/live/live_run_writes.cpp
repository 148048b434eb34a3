// A live run's writes of its backend's events: the batches the pump hands over without a
// thread waiting for their commit, the forced end's inline write, and what a committed
// batch asks for afterwards (docs/architecture.md, "Live runs").
#include "engine/live/live_run.hpp"

#include "core/log.hpp"
#include "events/event_bus.hpp"
#include "store/store.hpp"

namespace agentry::engine {

bool LiveRun::ready_to_write(const std::vector<plugin_host::BackendEvent>& batch, AttemptContext& attempt,
                             bool& approvals_changed) {
  {
    std::lock_guard lock(mutex_);
    if (finished_ || fenced_) return false;
  }
  attempt = attempt_;
  if (services_.stopping && services_.stopping->load()) attempt.shutdown_requested = true;
  // Known here before the store shows them (the write below records them for every
  // member): an answer that follows the commit at once finds the question waiting.
  approvals_changed = track_approvals(batch);
  return true;
}

void LiveRun::write_batch(std::vector<plugin_host::BackendEvent> batch, std::optional<ForcedEnd> forced) {
  AttemptContext attempt;
  bool approvals_changed = false;
  if (!ready_to_write(batch, attempt, approvals_changed)) return;
  auto outcome = services_.db.write<BatchOutcome>([&](store::Transaction& c) -> core::Result<BatchOutcome> {
    return apply_backend_events(c, attempt, batch, forced);
  });
  after_write(std::move(outcome), approvals_changed, forced.has_value());
}

void LiveRun::write_batch_async(std::vector<plugin_host::BackendEvent> batch, core::ByteHold held) {
  auto attempt = std::make_shared<AttemptContext>();
  bool approvals_changed = false;
  if (!ready_to_write(batch, *attempt, approvals_changed)) return;
  auto events = std::make_shared<std::vector<plugin_host::BackendEvent>>(std::move(batch));
  auto outcome = std::make_shared<std::optional<core::Result<BatchOutcome>>>();
  auto hold = std::make_shared<core::ByteHold>(std::move(held));
  strand_.run_async(
      [self = shared_from_this(), attempt, events, outcome](core::Work resume) {
        self->services_.db.write_then<BatchOutcome>(
            [attempt, events](store::Transaction& c) -> core::Result<BatchOutcome> {
              return apply_backend_events(c, *attempt, *events, std::nullopt);
            },
            [outcome, resume = std::move(resume)](core::Result<BatchOutcome> written) {
              outcome->emplace(std::move(written));
              resume();
            },
            store::BulkWrite{events->size()});
      },
      [self = shared_from_this(), events, outcome, hold, approvals_changed] {
        // Freed here, not on the writer: the single writer is the daemon's bottleneck.
        events->clear();
        hold->release();
        if (!*outcome) outcome->emplace(core::fail(core::ErrorCode::internal, "the write could not be queued"));
        self->after_write(std::move(**outcome), approvals_changed, false);
      });
}

void LiveRun::after_write(core::Result<BatchOutcome> outcome, bool approvals_changed, bool forced) {
  if (!outcome) {
    core::log_error("cannot record backend events", {{"runId", run_id()}, {"error", outcome.error().message}});
    if (forced) mark_finished(std::nullopt);  // nothing more can be done for this session
    return;
  }
  if (outcome->fenced) {
    fence("another controller took the run over (its lease has a later epoch)");
    return;
  }
  // Durable before visible: subscribers hear about these events only now.
  attempt_.adoption_reported = outcome->adoption_reported;
  attempt_.adoption_failed = outcome->adoption_failed;
  if (outcome->session_ended || outcome->next_attempt || outcome->decision_pending) {
    // Nobody is left to answer: the attempt that asked is over.
    std::lock_guard lock(mutex_);
    approvals_changed = approvals_changed || !pending_approvals_.empty();
    pending_approvals_.clear();
  }
  // The timeline's subscribers heard of the events on commit (TimelineRepository).
  if (outcome->run_changed || approvals_changed) services_.bus.run_changed(run_id());
  // Past its hard budget: stopped like a timeout, and the attempt's end (whatever the
  // backend reports) ends the run blocked with the reason (attempt_policy.hpp).
  if (outcome->budget_exceeded && !outcome->attempt_ended && !attempt_.budget_message) {
    attempt_.budget_message = *outcome->budget_exceeded;
    interrupt(*attempt_.budget_message, StopCause::budget);
  }
  if (outcome->attempt_ended || outcome->session_ended || outcome->next_attempt)
    after_attempt(std::make_shared<BatchOutcome>(std::move(*outcome)));
}

}  // namespace agentry::engine

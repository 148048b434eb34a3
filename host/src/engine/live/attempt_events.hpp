#pragma once
// What a batch of backend events does to the store: timeline rows with cursors, the
// resume token on the run and session, and, at the attempt's end, what comes next
// (engine/live/attempt_policy.hpp): another attempt in the same session, or the end of the
// session and the run's status, followed by a new session when messages were queued
// (engine/queued_delivery.hpp). Runs inside one write-queue job, so the end of one
// attempt and the start of the next are one commit.

#include "core/run.hpp"
#include "engine/parent_completion/child_resume_limits.hpp"
#include "engine/task_prompt.hpp"
#include "engine/requests.hpp"
#include "plugin_host/backend_instance.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace agentry::store {
class Transaction;
}  // namespace agentry::store

namespace agentry::engine {


/// How an attempt ended when the backend did not say so itself.
struct ForcedEnd {
  std::string outcome;  // "error", "interrupted", or "detached" (a detach the backend did not finish)
  std::string message;
  std::string adoption_reason = "adopt_failed";  // when it ends an adoption the backend never reported on
};

struct AttemptContext {
  std::string run_id;
  std::string controller_id;  // this process: the owner of any session it opens
  std::int64_t lease_epoch = 0;  // the run's lease this session took (engine/leases/)
  int attempt_number = 1;
  int session_index = 0;
  bool abort_requested = false;     // the user aborted: an interrupted attempt means aborted
  bool shutdown_requested = false;  // the daemon is stopping: no new attempt or session
  std::optional<std::string> timeout_message;  // set when the host's timeout fired
  std::optional<std::string> budget_message;   // set when the run's hard budget stopped it
  bool detach_requested = false;  // the host let go of the attempt (ext/detach.h) at shutdown
  // Adoption (ext/detach.h): this attempt takes over one a gone controller left running.
  bool adopting = false;
  std::string previous_controller_id;  // the gone controller whose attempt this takes over
  bool adoption_reported = false;  // the backend said whether it could
  bool adoption_failed = false;    // ... and it could not
  /// How the agent is told about its tasks: nudges and queued-message sessions use it.
  const TaskPromptSettings* task_prompt = nullptr;
  /// The run has afterAttempt hooks that may ask for another attempt (module hooks, the
  /// command built-in's json form): an attempt the backend ended waits for them before
  /// what comes next is decided (BatchOutcome::decision_pending, conclude_deferred_attempt).
  bool defer_decision = false;
  /// Children's completions queued past this rate stay queued when the session ends
  /// (held: engine/parent_completion/child_resume_limits.hpp); null: no limit.
  const ChildResumeLimits* child_limits = nullptr;
};

/// The next attempt of the same session, opened (attempt.started) in the same commit.
struct NextAttempt {
  int attempt_number = 0;
  std::string prompt;  // the nudge
  std::optional<std::string> resume_token;
};

/// A new session opened in the same commit to deliver queued messages.
struct NextSession {
  core::Run run;  // as committed
  std::string prompt;
};

/// The question an approval.request event asks, or nullopt when it has no approvalId.
std::optional<core::PendingApproval> pending_approval_of(const boost::json::object& payload);

struct BatchOutcome {
  bool fenced = false;  // nothing written: the run's lease moved to another controller
  bool run_changed = false;    // status, resume token: summaries must be re-published
  bool attempt_ended = false;  // the attempt reached its end (terminal event or forced)
  std::string attempt_outcome;  // ... with this outcome ("success", "error", ...)
  std::string ended_status;     // the run's status when the session ended
  bool session_ended = false;  // ... and so did the session: the live run is over
  bool detached = false;       // ... without ending it in the store: the agent works on
  bool adoption_reported = false;
  bool adoption_failed = false;
  std::optional<NextAttempt> next_attempt;
  std::optional<NextSession> next_session;
  /// The attempt ended, but what follows waits for its afterAttempt hooks
  /// (AttemptContext::defer_decision): the session stays open until
  /// conclude_deferred_attempt decides.
  bool decision_pending = false;
  std::string attempt_message;  // the end's message, for that decision
  bool after_attempt_hooks_ran = false;  // set by the live run once they did
  /// The usage this batch recorded crossed the run's hard budget: why (the live run
  /// interrupts the attempt, which then ends the run blocked).
  std::optional<std::string> budget_exceeded;
};

/// What an attempt's afterAttempt hooks asked of the next one.
struct AfterAttemptAsk {
  bool reinvoke = false;              // one more attempt, whatever the tasks say
  std::optional<std::string> prompt;  // its prompt (followUpPrompt, or mutate.run.attemptPrompt)
};

/// Applies `events` (in arrival order) for the attempt; `forced` ends the attempt
/// without a terminal event from the backend.
BatchOutcome apply_backend_events(store::Transaction& c, const AttemptContext& attempt,
                                  std::vector<plugin_host::BackendEvent>& events, const std::optional<ForcedEnd>& forced);

/// Decides what follows an attempt whose decision waited for its afterAttempt hooks
/// (`outcome` and `message`: how it ended): a reinvoke retries with its prompt while the
/// session has attempts left (attempt_policy.hpp decide_after_reinvoke), else the usual
/// rules apply, a hook's prompt replacing the nudge of a retry. Written like the end of
/// an attempt in apply_backend_events.
BatchOutcome conclude_deferred_attempt(store::Transaction& c, const AttemptContext& attempt, const std::string& outcome,
                                       const std::string& message, const AfterAttemptAsk& ask);

}  // namespace agentry::engine

#pragma once
// What happens after an attempt of a live run ends: another attempt in the same
// session (the retry loop), or the end of the session with a run status. A pure
// function of the attempt's end, the run's tasks as they are now, and the session's
// attempt budget (maxAttemptsPerSession), so every rule is testable without a backend.
//
// The rules, in order:
//  1. The host's timeout fired                      -> error (no retry).
//  2. The host ended the attempt (the backend could not start, or ignored an interrupt)
//                                                    -> aborted if the user or the
//     shutdown stopped it, else error (no retry: the same backend would fail the same way).
//  3. The backend reported "interrupted"            -> aborted when the user or the shutdown
//     asked for it, else error.
//  4. A run without tasks has nothing to re-check   -> success on "success", else error.
//  5. Any task blocked                               -> blocked.
//  6. All tasks completed                            -> success (even after an attempt that
//     reported an error: the work is done).
//  7. The user or the shutdown stopped the run meanwhile -> aborted.
//  8. Attempts left in the session                   -> retry with a nudge naming the
//     incomplete tasks (an attempt that reported "error" counts as a failed attempt).
//  9. Otherwise                                      -> exhausted.

#include "core/run.hpp"

#include <optional>
#include <string>
#include <vector>

namespace agentry::engine {

/// How an attempt ended, and what the host had asked of it.
struct AttemptEnd {
  std::string outcome;   // "success", "error", "interrupted" (anything else counts as error)
  std::string message;   // the backend's (or the host's) explanation; may be empty
  bool forced = false;   // the host ended it, not the backend's terminal event
  bool abort_requested = false;     // the user aborted
  bool shutdown_requested = false;  // the daemon is stopping
  std::optional<std::string> timeout_message;  // the host's timeout fired
  std::optional<std::string> budget_message;   // the run's hard budget stopped it
  bool adoption_failed = false;  // the attempt tried to take over a gone controller's work, and could not
};

struct AttemptDecision {
  bool retry = false;
  // When the session ends:
  core::RunStatus status = core::RunStatus::error;
  std::string reason;
  std::string ended_by;  // "agent", "user" or "shutdown" (core::Session::ended_by)
  // When it retries:
  std::string nudge;  // the next attempt's prompt
  std::vector<std::string> incomplete_task_ids;
};

/// `attempts_in_session` counts the attempt that just ended.
AttemptDecision decide_after_attempt(const AttemptEnd& end, const std::vector<core::Task>& tasks,
                                     int attempts_in_session, int max_attempts_per_session);

/// After an afterAttempt hook asked for one more attempt (a module's `reinvoke`, with
/// `prompt` its followUpPrompt), whatever the tasks say: aborted when the user or the
/// shutdown stopped the run meanwhile, the retry when the session has attempts left,
/// else exhausted. Only for an attempt the backend ended (rules 1-3 above decide the
/// others, before any hook runs).
AttemptDecision decide_after_reinvoke(const AttemptEnd& end, int attempts_in_session, int max_attempts_per_session,
                                      const std::string& prompt);

}  // namespace agentry::engine

#pragma once
// What a batch of backend events does to the store: timeline rows with cursors,
// the resume token on the run and session, and, for the terminal event, the end of
// the attempt, the session and (for now, one attempt per session) the run.
// Runs inside one write-queue job.

#include "core/run.hpp"
#include "engine/requests.hpp"
#include "plugins/backend_session.hpp"
#include "store/sqlite.hpp"

#include <optional>
#include <string>
#include <vector>

namespace agentry::engine {

/// The timeline kind of a backend event type ("message.delta", "tool.started", ...).
std::string timeline_kind(std::uint16_t event_type);

/// How an attempt ended when the backend did not say so itself.
struct ForcedEnd {
  std::string outcome;  // "error" or "interrupted"
  std::string message;
};

struct AttemptContext {
  std::string run_id;
  int attempt_number = 1;
  int session_index = 0;
  bool abort_requested = false;  // the user aborted: an interrupted attempt means aborted
  std::optional<std::string> timeout_message;  // set when the host's timeout fired
};

struct BatchOutcome {
  bool run_changed = false;  // status, resume token: summaries must be re-published
  bool finished = false;     // the attempt (and session) ended
  std::vector<std::string> ephemeral;  // envelopes to publish live, in order
};

/// Applies `events` (in arrival order) for the attempt; `forced` ends the attempt
/// without a terminal event from the backend.
BatchOutcome apply_backend_events(store::Connection& c, const AttemptContext& attempt,
                                  std::vector<plugins::BackendEvent>& events, const std::optional<ForcedEnd>& forced);

}  // namespace agentry::engine

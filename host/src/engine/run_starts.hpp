#pragma once
// What the engine's services (schedules, dependencies, parent completion) may ask of
// the runs themselves. The Engine implements it with its lifecycle commands, so a
// service starts a run exactly as a user's request would, through the same checks and
// audit, without knowing how sessions are opened or driven.

#include "core/result.hpp"
#include "core/run.hpp"
#include "engine/requests.hpp"

#include <string>

namespace agentry::engine {

class RunStarts {
 public:
  /// The first (or next) session of `run_id` (Engine::resume). `automatic`: the daemon
  /// starting a ready run whose dependencies are met; refused unless it still is.
  virtual core::Result<core::Run> open_next_session(const std::string& run_id, const ResumeRequest& request,
                                                    const Actor& actor, bool automatic) = 0;
  /// Engine::reset: the run back to initialized, as before its first session.
  virtual core::Result<core::Run> reset(const std::string& run_id, const Actor& actor) = 0;
  /// Starts driving the session (and attempt) a committed write just opened.
  virtual void launch_session(const core::Run& run, const std::string& prompt) = 0;
  /// Whether this process drives a live session of the run now.
  virtual bool is_live(const std::string& run_id) const = 0;

 protected:
  ~RunStarts() = default;
};

}  // namespace agentry::engine

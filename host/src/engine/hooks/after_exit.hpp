#pragma once
// What follows every end of a session: the run's afterExit hooks, and making the run,
// its session row and its run.finished notification agree on how it ended.
//
// Every path that ends a session (a live session's last attempt, a passive run's tasks,
// an abort with no live session, a restart's reconciliation) ends it in its own write,
// and that write holds the session's run.finished notifications back when the run has
// afterExit hooks (detail::close_session). Then, off the writer and off any request
// worker, settle_session_end() runs the hooks and, in one write, records them, turns a
// refused success into `blocked` on the run AND the session row, and releases the held
// notifications with the run's final status and reason. A crash in between leaves them
// held; the next serving daemon releases them as they were (reconcile_after_restart).
//
// HookJobs runs that on the blocking pool for the ends no live session follows through
// (LiveRun does it as a blocking step of its strand), and lets an abort or a shutdown
// stop the hooks of a run that run outside a live session (engine/hooks/hook_runner.hpp
// HookCancel).

#include "core/blocking_pool.hpp"
#include "engine/hooks/hook_runner.hpp"

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace agentry::events {
class EventBus;
}

namespace agentry::engine {

struct SessionEnd {
  std::string run_id;
  int session_index = 0;
  std::string status;  // the run's status as the session ended
};

/// Blocking (the hooks run here): on the blocking pool (core/blocking_pool.hpp), for a
/// live run as one step of its strand. Publishes the run's change when there was one.
void settle_session_end(const SessionEnd& end, const HookServices& services, events::EventBus& bus);

class HookJobs {
 public:
  /// `services.cancelled` is ignored: each job and hook gets its own.
  HookJobs(core::BlockingPool& pool, HookServices services, events::EventBus& bus);
  ~HookJobs();

  /// settle_session_end() for `end`, on the blocking pool.
  void after_session_end(SessionEnd end);

  /// A cancellation for hooks of `run_id` run outside a live session (taskTransition on a
  /// request worker): registered while the returned handle lives.
  class Scope {
   public:
    Scope(HookJobs& jobs, std::string run_id);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    /// HookServices::cancelled for hooks run within this scope.
    std::function<std::optional<std::string>()> cancelled() const;

   private:
    std::shared_ptr<struct HookJobsState> state_;
    std::string run_id_;
    std::shared_ptr<HookCancel> cancel_;
  };

  /// The user aborted the run: its hooks running outside a live session are killed.
  void cancel_run(const std::string& run_id, const std::string& reason);
  /// Shutdown, first half: every running hook is killed and later ones are audited
  /// cancelled without starting; the jobs still do their write. Idempotent.
  void cancel_all();
  /// Shutdown: cancel_all(), then waits (briefly: no hook runs any more) for the jobs
  /// already posted to do their write. Idempotent.
  void stop();

 private:
  core::BlockingPool& pool_;
  std::shared_ptr<HookJobsState> state_;
};

}  // namespace agentry::engine

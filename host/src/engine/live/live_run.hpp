#pragma once
// One session of a run on a live backend, from launch to the end of its last attempt.
//
// All control calls into the backend happen on the run's strand. What waits (hooks,
// libgit2) runs on the blocking pool as a step of the strand
// (core::Strand::run_blocking): the strand runs nothing else of this run until the step
// is back, so the run's sequence is unchanged, but no strand thread waits on a child or
// on git. Events arrive on plugin threads, go into a bounded queue (full -> the plugin
// sees BUSY), and a pump on the strand writes them in batches through the write queue;
// only after that commit are subscribers told. An attempt ends at the backend's terminal event, or is ended by
// the host when the backend fails to start or ignores an interrupt. The write that
// records the end also decides what follows (engine/live/attempt_events.hpp): the next
// attempt starts on the same backend instance (the ABI returns an instance to idle
// after its terminal event, and the instance keeps whatever context the backend holds
// for the session), or the session ends and the instance is destroyed.

#include "core/blocking_pool.hpp"
#include "core/byte_budget.hpp"
#include "core/executor.hpp"
#include "core/run.hpp"
#include "engine/live/attempt_events.hpp"
#include "engine/hooks/hook_runner.hpp"
#include "engine/lineage.hpp"
#include "environments/container_manager.hpp"
#include "environments/launch.hpp"
#include "plugin_host/backend_instance.hpp"

#include <boost/json/value.hpp>

#include <atomic>
#include <filesystem>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

namespace agentry::events {
class EventBus;
}
namespace agentry::plugin_host {
class PluginRegistry;
}
namespace agentry::store {
class Store;
}  // namespace agentry::store

namespace agentry::engine {

class Attachments;

struct LiveRunServices {
  store::Store& db;
  const plugin_host::PluginRegistry& plugins;
  core::ThreadPool& pool;  // the run's strand and timers
  core::BlockingPool& blocking;  // its hooks and git work (core/blocking_pool.hpp)
  events::EventBus& bus;
  /// How long a backend has to end an attempt after interrupt() (plugin obligation 8).
  std::chrono::milliseconds interrupt_grace{10000};
  /// Set once the daemon is stopping: no attempt or session may start after it. Shared,
  /// so a straggler that outlives its LiveRuns still reads valid memory.
  std::shared_ptr<const std::atomic<bool>> stopping{};
  /// How agents are told about their tasks (engine/task_prompt.hpp); outlives the runs.
  const TaskPromptSettings* task_prompt = nullptr;
  /// Each session's agent gets a token of its own (engine/live/run_tokens.hpp).
  bool per_run_tokens = false;
  /// $AGENTRY_HOME: per-run worktrees go under worktrees/ (engine/hooks/hook_runner.hpp).
  std::filesystem::path state_dir{};
  /// Where hooks' attachments go (engine/attachments.hpp); outlives the runs.
  Attachments* attachments = nullptr;
  /// How often children's completions may resume a run (engine/parent_completion/child_resume_limits.hpp).
  const ChildResumeLimits* child_limits = nullptr;
  /// A session ended with none to follow it: room for a waiting start (engine/placement/).
  std::function<void()> slot_freed{};
  /// The containers of runs in container environments (environments/container_manager.hpp).
  std::shared_ptr<environments::ContainerManager> containers{};
  /// How many runs may nest (AGENTRY_MAX_CALL_DEPTH): agents are told, in both families.
  int max_call_depth = default_max_call_depth;
  /// What every live run's backend events may hold together, queued or being written.
  std::shared_ptr<core::ByteBudget> queued_events{};
};

struct LaunchSpec {
  core::Run run;  // as committed when the session opened
  int attempt_number = 1;
  int session_index = 0;
  std::string prompt;
  std::vector<std::string> env;  // extra "KEY=VALUE" for the agent
  std::string daemon_socket;     // the daemon's Unix socket, if it has one
  std::string controller_id;     // this process
  std::int64_t lease_epoch = 0;  // the run's lease, as the session's opening took it
  // The first attempt takes over the one a gone controller left running (ext/detach.h)
  // instead of starting one; the run's open session and attempt continue. `prompt` is
  // then what that attempt was to say, and this its last checkpoint payload (or null).
  bool adopt = false;
  boost::json::value adopt_checkpoint;
  std::string previous_controller_id;  // adopting: the gone controller
};

/// Why the host interrupts an attempt. `daemon_exit` is a shutdown after which another
/// daemon takes over: a backend that can leave its agent working (ext/detach.h) is
/// detached instead of interrupted.
enum class StopCause { user_abort, shutdown, timeout, daemon_exit, budget };

class LiveRun : public plugin_host::BackendEventSink, public std::enable_shared_from_this<LiveRun> {
 public:
  // Room for what a backend emits while one write commits (a few ms at full speed): a
  // backend that finds it full sleeps and retries (plugin obligation 9), idling the run.
  static constexpr std::size_t queue_limit = 16384;
  /// Told when the session is over, with the session that delivers queued messages, if any.
  using OnFinished = std::function<void(LiveRun&, std::optional<NextSession>)>;

  LiveRun(LiveRunServices services, LaunchSpec spec, OnFinished on_finished);
  ~LiveRun() override;

  const std::string& run_id() const { return attempt_.run_id; }
  /// Creates the backend instance and starts (or adopts) the first attempt, on the strand.
  void launch();
  /// Asks the backend to stop; the session then ends (no further attempt). Ends the
  /// attempt by force if no terminal event arrives within the grace period.
  void interrupt(const std::string& reason, StopCause cause);
  /// The run's lease moved to another controller (engine/leases/): `why` is logged, the
  /// agent is stopped, and the session ends here without another write for the run,
  /// which is now the other controller's. From any thread.
  void fence(const std::string& why);
  bool fenced() const { return fenced_.load(); }
  std::int64_t lease_epoch() const { return spec_.lease_epoch; }
  /// True when the current attempt waits on `approval_id` (the store keeps the questions
  /// for every member to show: store/approval_repository.hpp).
  bool is_waiting_on(const std::string& approval_id) const;
  /// Hands the user's decision ("approve" or "deny") to the backend without waiting for
  /// it: the approval stops being pending at once. NOT_FOUND when the attempt is not
  /// waiting on `approval_id`. A backend that refuses the answer gets the approval back
  /// as pending, with audit run.approval_answer_failed.
  core::Result<void> answer_approval(const std::string& approval_id, const std::string& decision);
  /// True once the host let go of the attempt and left its agent working (ext/detach.h).
  bool detached() const { return detached_.load(); }
  /// Blocks until the session has ended (and handed off to a queued-message session, if
  /// any), or `timeout` passes. True when it ended.
  bool wait_finished(std::chrono::milliseconds timeout);

  // BackendEventSink
  bool offer(plugin_host::BackendEvent event) override;
  void on_log(int severity, std::string message, int policy) override;
  void on_callback_requested() override;

 private:
  /// From a task on the strand: `work` on the blocking pool, then `then` on the strand,
  /// before anything else of this run. `work` gets copies of what it reads of the run
  /// (or reads only what never changes, and HookCancel); `then` applies the results.
  void off_strand(std::function<void()> work, std::function<void(LiveRun&)> then);
  // The launch, step by step: prepare hooks, the workspace baseline, the instance.
  void prepare();
  void record_baseline();
  void create_instance();
  /// beforeAttempt hooks, then begin_attempt() with the prompt they left.
  void start_attempt(const std::string& original_prompt);
  /// A run in a container environment gets its container first (place_in_container),
  /// then launch_attempt().
  void begin_attempt(const std::string& prompt);
  /// Starts (or adopts) the attempt on the instance and arms its timeout.
  void launch_attempt(const std::string& prompt);
  // live_run_container.cpp: the container of a run in a container environment.
  void place_in_container(const std::string& prompt);
  void record_container_actions(const std::vector<environments::ContainerAction>& actions);
  /// The session ended with none to follow: the run no longer uses its container.
  void release_container();
  /// A failed attempt whose container stopped under it says so in the run's reason
  /// (the agent's own exit, "killed by signal 9", does not), then `then`.
  void explain_container_failure(std::shared_ptr<BatchOutcome> outcome,
                                 std::function<void(LiveRun&, std::shared_ptr<BatchOutcome>)> then);
  /// Detaches instead of interrupting, when the backend can. On the strand.
  bool try_detach(const std::string& reason);
  void arm_interrupt_grace();
  void pump();
  /// `adoption_reason`: why an adopting attempt could not take over (audit reason).
  void end_by_host(std::string outcome, std::string message, std::string adoption_reason = "adopt_failed");
  /// Writes the batch and waits for its commit (a forced end, whatever called it).
  void write_batch(std::vector<plugin_host::BackendEvent> batch, std::optional<ForcedEnd> forced);
  /// Writes the batch without a thread waiting for the commit: the strand holds the
  /// run's other work until then (core::Strand::run_async), and the backend's next
  /// events gather meanwhile into the next batch. From a strand task, last.
  void write_batch_async(std::vector<plugin_host::BackendEvent> batch, core::ByteHold held);
  /// Before a batch's write: false when the run no longer takes events.
  bool ready_to_write(const std::vector<plugin_host::BackendEvent>& batch, AttemptContext& attempt,
                      bool& approvals_changed);
  /// After a batch's commit (or failure): what the outcome asks for.
  void after_write(core::Result<BatchOutcome> outcome, bool approvals_changed, bool forced);
  // After a batch that ended an attempt, step by step: the diffstat, afterAttempt
  // hooks, afterExit hooks, then follow_attempt(): the next attempt or the end.
  void after_attempt(std::shared_ptr<BatchOutcome> outcome);
  void after_attempt_hooks(std::shared_ptr<BatchOutcome> outcome);
  /// An attempt whose decision waited for its afterAttempt hooks (decision_pending): what
  /// they asked decides, then the steps go on as after any decided attempt.
  void conclude_deferred(std::shared_ptr<BatchOutcome> outcome, const HookPhaseResult& hooks);
  void after_exit_hooks(std::shared_ptr<BatchOutcome> outcome);
  void follow_attempt(std::shared_ptr<BatchOutcome> outcome);
  void mark_finished(std::optional<NextSession> next);
  using HooksDone = std::function<void(LiveRun&, const HookPhaseResult&)>;
  /// Runs the run's hooks of one phase (engine/hooks/hook_runner.hpp) off the strand, then,
  /// on it, records what they did and hands the result (did one stop the run?) to
  /// `then`. `prompt_session`: beforeAttempt of a session's first attempt, whose
  /// rewritten prompt is stored on that session's row in the same write.
  void run_phase_hooks(HookInvocation invocation, std::optional<int> prompt_session, HooksDone then);
  void record_phase_hooks(const HookPhaseResult& result, std::optional<int> prompt_session);
  /// A gate hook (prepare, beforeAttempt) stopped the run: blocked, failed or cancelled.
  void end_for_stopping_hook(const HookPhaseResult& result);
  /// How hooks of this session learn they must stop: an abort or a shutdown
  /// (interrupt()), or the daemon stopping. afterExit hooks only heed the latter.
  HookServices hook_services(bool heed_abort) const;
  /// A gate hook (prepare, beforeAttempt) was cancelled: the attempt ends interrupted,
  /// as an abort or shutdown would have ended it.
  void end_for_cancelled_hook(const std::string& message);
  /// After a batch committed: approval requests in it now wait for an answer. True
  /// when there were any.
  bool track_approvals(const std::vector<plugin_host::BackendEvent>& batch);

  LiveRunServices services_;
  LaunchSpec spec_;
  AttemptContext attempt_;  // the current attempt; touched on the strand only
  core::Strand strand_;
  OnFinished on_finished_;
  std::unique_ptr<plugin_host::BackendInstance> backend_;  // touched on the strand only
  std::optional<environments::ContainerExec> container_exec_;  // strand only: this attempt's
  core::TimerHandle timeout_timer_;
  core::TimerHandle grace_timer_;

  mutable std::mutex mutex_;
  std::condition_variable finished_cv_;
  std::deque<plugin_host::BackendEvent> queue_;
  std::size_t queue_bytes_ = 0;  // taken from services_.queued_events for queue_; under mutex_
  /// Gives back what `taken` events of queue_ held (under mutex_).
  void release_queued(std::size_t bytes);
  bool pump_scheduled_ = false;
  bool finished_ = false;   // the session ended: events are dropped, no attempt starts
  bool handed_off_ = false;  // ... and on_finished_ returned: waiters may go on
  bool interrupting_ = false;
  std::atomic<bool> detached_{false};
  std::atomic<bool> fenced_{false};  // lost the lease: nothing more is written
  std::string interrupt_reason_;  // strand only
  std::vector<core::PendingApproval> pending_approvals_;  // guarded by mutex_
  int next_input_ = 0;  // strand only: input ids for send_input
  // Set by interrupt() from any thread, before its work waits its turn on the strand:
  // a hook of this run (on the blocking pool) polls it and dies at once
  // (engine/hooks/hook_runner.hpp).
  HookCancel hook_cancel_;
  std::atomic<bool> hook_cancel_by_user_{false};
};

}  // namespace agentry::engine

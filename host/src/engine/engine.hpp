#pragma once
// The engine applies commands to runs. Each mutation is one write-queue job that
// re-reads the run on the writer connection, asks core::refusal() whether the
// operation is allowed, writes the change and its audit record, and commits: the
// check and the write are atomic even against another process (the embedded CLI)
// writing the same database. Reads use reader connections and see committed state.

#include "core/pages.hpp"
#include "core/result.hpp"
#include "core/run.hpp"
#include "core/schedule.hpp"
#include "core/schedule_rules.hpp"
#include "engine/after_exit.hpp"
#include "engine/attachments.hpp"
#include "engine/backend_catalog.hpp"
#include "engine/child_resume_limits.hpp"
#include "engine/delayed_calls.hpp"
#include "engine/dependency_watcher.hpp"
#include "engine/lineage.hpp"
#include "engine/live_runs.hpp"
#include "engine/project_trust.hpp"
#include "engine/requests.hpp"
#include "engine/task_prompt.hpp"
#include "events/event_bus.hpp"

#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace agentry::store {
class Store;
class Transaction;
}  // namespace agentry::store

namespace agentry::engine {

class TimerSource;
inline constexpr int default_min_recurrence_interval_sec = 300;

struct EngineConfig {
  std::filesystem::path config_dir;
  std::filesystem::path state_dir;
  std::string controller_id;  // this process, e.g. "daemon-1234-abc123"
  /// How long a live backend has to stop after an interrupt before the host ends the
  /// attempt itself.
  std::chrono::milliseconds interrupt_grace{10000};
  /// What agents are told about their tasks, and the command they report them with.
  TaskPromptSettings task_prompt{};
  /// Auth is on: each session's agent gets a token of its own (engine/run_tokens.hpp).
  bool per_run_tokens = false;
  /// How many runs may nest through parentRunId, a top-level run being 1 deep
  /// (AGENTRY_MAX_CALL_DEPTH); creating a deeper one is refused.
  int max_call_depth = default_max_call_depth;
  /// Schedules: where time and wake-ups come from (tests inject a fake clock; null:
  /// the wall clock and the pool's timers), and the shortest gap a recurring schedule
  /// may have between occurrences (AGENTRY_MIN_RECURRENCE_INTERVAL_SEC).
  std::shared_ptr<TimerSource> schedule_timers{};
  int min_recurrence_interval_sec = default_min_recurrence_interval_sec;
  /// The environment variables an untrusted project's definitions may read
  /// (AGENTRY_PROJECT_ENV_ALLOW, engine/project_trust.hpp).
  std::vector<std::string> project_env_allow{};
  /// How often children's completions may resume a parent, and how many children a
  /// parent may have that have not ended (engine/child_resume_limits.hpp).
  ChildResumeLimits child_limits{};
};

class ScheduleRuntime;

struct DeletedQueuedMessage {
  std::string run_id;
  std::string message_id;
};

struct ApprovalAnswer {
  std::string run_id;
  std::string approval_id;
  std::string decision;  // "approve" | "deny"
};

/// Everything a RunDetail shows, read in one snapshot.
struct RunView {
  core::Run run;
  std::vector<core::Task> tasks;
  std::vector<core::Session> sessions;
  std::vector<core::Attempt> attempts;
};

struct RunListView {
  std::vector<boost::json::object> summaries;
  std::optional<std::string> next_cursor;
};

struct DeletedTask {
  std::string run_id;
  std::string task_id;
  std::string updated_at;
};

/// What the engine works with; all outlive it.
struct EngineServices {
  store::Store& db;
  const plugin_host::PluginRegistry& plugins;
  core::ThreadPool& pool;  // strands and timers: never blocked by the engine
  events::EventBus& bus;
  core::BlockingPool& blocking;  // hooks, libgit2: whatever waits (core/blocking_pool.hpp)
};

class Engine {
 public:
  Engine(EngineServices services, EngineConfig config);
  /// Interrupts live runs (they end as aborted) before the services go away.
  ~Engine();

  // Creation.
  core::Result<core::Run> init(const InitRequest& request, const Actor& actor);
  /// init(), answering with the run as committed: the rows it wrote (the run, its tasks;
  /// no sessions, attempts or queued messages yet), without reading them back. The same
  /// as view() of the new run just after (tests/unit/engine and run_api_test check it).
  core::Result<RunView> init_view(const InitRequest& request, const Actor& actor);
  /// init followed by the first session, in one call.
  core::Result<core::Run> start(const InitRequest& request, const Actor& actor);

  // Lifecycle.
  /// Promotes an initialized run to ready; with `schedule`, also sets it in the same
  /// write (runs.ready's schedule params), so the run is never ready without it.
  core::Result<core::Run> ready(const std::string& run_id, const Actor& actor,
                                const std::optional<core::ScheduleSpec>& schedule = std::nullopt);
  core::Result<core::Run> resume(const std::string& run_id, const ResumeRequest& request, const Actor& actor);
  core::Result<core::Run> abort(const std::string& run_id, const std::string& reason, const Actor& actor);
  core::Result<core::Run> archive(const std::string& run_id, const Actor& actor);
  core::Result<core::Run> unarchive(const std::string& run_id, const Actor& actor);
  core::Result<core::Run> reset(const std::string& run_id, const Actor& actor);
  core::Result<void> remove(const std::string& run_id, const Actor& actor);
  core::Result<core::Run> reconfigure(const std::string& run_id, const ReconfigureRequest& request,
                                      const Actor& actor);

  // Metadata.
  core::Result<core::Run> set_name(const std::string& run_id, std::optional<std::string> name, const Actor& actor);
  core::Result<core::Run> set_note(const std::string& run_id, std::optional<std::string> note, const Actor& actor);
  core::Result<core::Run> set_pinned(const std::string& run_id, bool pinned, const Actor& actor);
  core::Result<core::Run> set_backend_session(const std::string& run_id, std::optional<std::string> session_id,
                                              const Actor& actor);
  core::Result<core::Run> set_group(const std::string& run_id, std::optional<std::string> group_id,
                                    const Actor& actor);

  // Dependencies (engine/dependency_commands.cpp): what a run waits on before it may
  // start. Changed only while the run is initialized or ready.
  core::Result<core::Run> add_dependency(const std::string& run_id, core::Dependency dependency, const Actor& actor);
  core::Result<core::Run> remove_dependency(const std::string& run_id, core::DependencyType type,
                                            const std::string& target, const Actor& actor);
  core::Result<core::Run> clear_dependencies(const std::string& run_id, const Actor& actor);
  /// From now on (a serving daemon), a ready run whose dependencies are all met is
  /// started, once, by the daemon: looked at whenever a run it waits on changes, and
  /// now for every run that has dependencies (the startup sweep). Off in embedded
  /// processes, whose runs would end with them.
  void enable_dependency_auto_start();

  // Tasks.
  core::Result<std::vector<core::Task>> list_tasks(const std::string& run_id);
  core::Result<core::Task> get_task(const std::string& run_id, const std::string& task_id);
  /// May wait on the run's taskTransition hooks (up to their timeouts): callers that
  /// must not wait ask transition_runs_hooks() first and call it elsewhere when it does.
  core::Result<core::Task> update_task(const std::string& run_id, const std::string& task_id, const TaskPatch& patch,
                                       const Actor& actor);
  /// Whether update_task() with `patch` would run taskTransition hooks now (a quick read).
  bool transition_runs_hooks(const std::string& run_id, const std::string& task_id, const TaskPatch& patch);
  core::Result<core::Task> append_task_notes(const std::string& run_id, const std::string& task_id,
                                             const std::string& text, const Actor& actor);
  core::Result<core::Task> add_task(const std::string& run_id, const NewTask& task, const Actor& actor);
  core::Result<DeletedTask> delete_task(const std::string& run_id, const std::string& task_id, const Actor& actor);

  // Queued resume messages: follow-ups for a running run, delivered together as the
  // prompt of one new session when the live session ends (engine/queued_delivery.hpp).
  core::Result<core::QueuedMessage> queue_message(const std::string& run_id, const std::string& text,
                                                  const Actor& actor);
  core::Result<std::vector<core::QueuedMessage>> list_queued_messages(const std::string& run_id);
  core::Result<DeletedQueuedMessage> remove_queued_message(const std::string& run_id, const std::string& message_id,
                                                           const Actor& actor);

  /// Answers an approval the run's live attempt waits on (RunDetail.pendingApprovals).
  core::Result<ApprovalAnswer> answer_approval(const std::string& run_id, const std::string& approval_id,
                                               const std::string& decision, const Actor& actor);

  // Schedules (schedule_commands.cpp; due occurrences in schedule_firing.cpp). The
  // spec comes from core::parse_schedule_request(body, now_ms()).
  core::Result<core::Run> set_schedule(const std::string& run_id, const core::ScheduleSpec& spec, const Actor& actor);
  /// One-time schedules only; a recurring one is disabled instead (CONFLICT).
  core::Result<core::Run> clear_schedule(const std::string& run_id, const Actor& actor);
  core::Result<core::Run> set_schedule_enabled(const std::string& run_id, bool enabled, const Actor& actor);
  /// Daemon startup, after reconciliation: occurrences missed while no daemon ran are
  /// recorded (one-time schedules cleared, recurring ones advanced; docs/api.md), the
  /// rest armed, and from then on due schedules start their runs. Returns how many are armed.
  core::Result<int> start_schedules();
  /// Disarms every schedule and waits for due occurrences being handled. Idempotent.
  void stop_schedules();
  std::size_t armed_schedule_count() const;
  /// The schedules' clock (EngineConfig::schedule_timers).
  std::int64_t now_ms() const;

  /// Answers a question about the run's state through its backend's ask extension,
  /// without a turn of the run and without touching its timeline; audited as run.asked.
  /// Waits for the backend (up to request.timeout): call it on a slow-work thread.
  /// CONFLICT {"reason": "not_supported"} when the backend cannot answer; UNAVAILABLE
  /// {"reason": "timeout"|"backend_error"} when it did not.
  core::Result<AskAnswer> ask(const std::string& run_id, const AskRequest& request, const Actor& actor);
  static constexpr int max_asks_in_flight = 2;

  // Reads.
  core::Result<RunView> view(const std::string& run_id);
  core::Result<RunListView> list(const core::RunQuery& query);
  core::Result<std::vector<core::AuditEvent>> audit(const std::string& run_id, const core::EventPageQuery& q);
  core::Result<std::vector<core::TimelineEvent>> timeline(const std::string& run_id, const core::EventPageQuery& q);
  /// The run's last timeline cursor (0 when it has none).
  core::Result<std::int64_t> timeline_last_cursor(const std::string& run_id);

  /// Startup: runs persisted as running whose controller is gone are taken over when
  /// their backend can (ext/detach.h), else become `error`, with an audit record saying
  /// why. Returns how many runs were finalized.
  core::Result<int> reconcile_after_restart();
  /// While serving, now and then: the same for runs whose controller has gone since (an
  /// embedded CLI that exited or was killed), never touching this process's own runs and
  /// recording nothing for runs it leaves alone. Returns how many runs were finalized.
  core::Result<int> reconcile_stale_owners();
  /// Startup, after reconcile_after_restart(): delivers the queued messages of every run
  /// whose session ended without delivering them (the daemon stopped or died first),
  /// unless the user aborted it. Returns how many sessions it started.
  core::Result<int> deliver_queued_after_restart();

  /// While serving, now and then: if another process (an embedded CLI) committed since
  /// the last look, every run it changed is announced as if this engine had changed it
  /// (streams wake, dependents start) and its schedule re-armed (foreign_changes.cpp).
  /// Returns how many runs were announced.
  core::Result<int> notice_foreign_changes();

  /// Startup, after deliver_queued_after_restart(): delivers the parent-completion
  /// notifications of child sessions that ended while no daemon delivered them (one
  /// whose session is not confirmed ended stays pending, audited), and from now on each
  /// one as its child's session ends, on the pool (engine/parent_notifications.hpp).
  /// Off in embedded processes: the next serving daemon delivers. Returns how many it delivered.
  core::Result<int> start_parent_notifications();

  /// The daemon's WebSocket URL (ws://host:port/; the HTTP API is the same host and
  /// port), given to the agents of sessions launched from now on as AGENTRY_CONNECT. Not
  /// part of EngineConfig because it is known only once the daemon listens, after the
  /// engine exists (reconciliation must run before anyone is served).
  void set_connect_url(const std::string& url);

  /// Graceful shutdown: interrupts every live run and waits for them to end. With
  /// `leave_remote_agents` (a daemon stopping; the next one takes over), a run whose
  /// agent can work on without this process (ext/detach.h) is detached instead.
  void stop_live_runs(const std::string& reason, bool leave_remote_agents = false);

  /// The run a per-run token belongs to, while that run's session lives.
  std::optional<std::string> run_of_token(std::string_view token);

  /// Files handed to runs (engine/attachments.hpp).
  Attachments& attachments() { return attachments_; }
  /// Which projects' definitions the user trusts (engine/project_trust.hpp).
  ProjectTrust& projects() { return projects_; }
  const ProjectTrust& projects() const { return projects_; }
  const EngineConfig& config() const { return config_; }
  const BackendCatalog& backends() const { return backends_; }
  events::EventBus& bus() { return bus_; }
  std::size_t live_run_count() const { return live_.count(); }

 private:
  /// A write job for one run; subscribers hear of the change after it committed.
  /// Defined in engine/mutate.hpp, which the command files include.
  template <class T, class F>
  core::Result<T> mutate(const std::string& run_id, F&& job);
  /// Starts driving the session (and attempt) the last write opened.
  void launch_session(const core::Run& run, const std::string& prompt);
  /// The first (or next) session of `run_id`. `automatic`: the daemon starting a ready
  /// run whose dependencies are met; refused unless it still is, in the same write.
  core::Result<core::Run> open_next_session(const std::string& run_id, const ResumeRequest& request,
                                            const Actor& actor, bool automatic);
  /// After a change of `run_id`: refreshes the summaries of the runs waiting on it, and
  /// starts those (and the run itself) that are ready with every dependency met. On the
  /// pool, never on a request worker or the writer (engine/dependency_watcher.hpp).
  void dependencies_changed(const std::string& run_id);
  /// Delivers, or skips with a reason, the pending parent-completion notifications of
  /// `child_id` whose session has ended: one write, then the parent's session launches.
  /// `at_startup` audits those whose session has not ended. Returns how many it delivered.
  core::Result<int> deliver_parent_notifications(const std::string& child_id, bool at_startup);
  /// Resumes `parent_id` once with every child completion held on its queue (past its
  /// child-resume rate), when it is idle and the rate allows; else arms a later look.
  void resume_held_completions(const std::string& parent_id);
  /// Starts the run when it is ready, not archived, and has dependencies, all met.
  void start_if_dependencies_met(const std::string& run_id);
  /// After a write that ended a session outside a live session (an abort, a passive
  /// run's tasks, reconciliation): its afterExit hooks, then the held notification.
  void session_ended(const core::Run& run, int session_index);
  /// One run of either reconciliation: true when it was finalized (reconciliation.cpp).
  core::Result<bool> reconcile_run(const std::string& run_id, bool at_startup);

  // Schedules: the due handler, arming after a change, and what starts a due run.
  void on_schedule_due(const std::string& run_id, std::int64_t due_ms);
  void arm_schedule(const std::string& run_id, const std::optional<core::Schedule>& schedule);
  core::Result<core::Run> start_due_run(const core::Run& run, const core::Schedule& schedule, const Actor& actor);
  core::Result<core::Run> clone_for_schedule(const std::string& template_id, const Actor& actor);
  void record_occurrence(const std::string& run_id, std::int64_t due_ms, const std::string& schedule_version,
                         const std::optional<core::ScheduleSkip>& skip, const std::optional<std::string>& started);
  core::Result<void> advance_missed(const std::string& run_id, std::int64_t due_ms);
  /// An assignment's `schedule:` checked as a request body would be (nullopt: none).
  core::Result<std::optional<core::ScheduleSpec>> assignment_schedule(const boost::json::value& schedule,
                                                                      const std::string& assignment);
  /// VALIDATION_FAILED when the spec fires too often or never (docs/api.md#schedules).
  core::Result<void> check_schedule(const core::ScheduleSpec& spec) const;
  /// Inside a write job (init, ready): stores the run's schedule and audits schedule.set
  /// with `source` ("assignment", "ready"); the caller saves the run, then arms it.
  void store_schedule(store::Transaction& c, core::Run& run, const core::ScheduleSpec& spec, const Actor& actor,
                      const std::string& source);

  store::Store& db_;
  BackendCatalog backends_;
  /// Questions being answered now (ask): a few at most, so they never fill the slow pool.
  std::atomic<int> asks_in_flight_{0};
  events::EventBus& bus_;
  core::ThreadPool& pool_;
  core::BlockingPool& blocking_;
  EngineConfig config_;
  LiveRuns live_;
  Attachments attachments_{db_, bus_, config_.state_dir};
  ProjectTrust projects_{db_, config_.config_dir, config_.project_env_allow};
  /// afterExit of session ends no live session follows through, and the cancellation of
  /// hooks run outside a live session (engine/after_exit.hpp).
  HookJobs hook_jobs_{blocking_, HookServices{db_, config_.state_dir, &attachments_}, bus_};
  std::unique_ptr<ScheduleRuntime> schedules_;
  struct ForeignWatch {
    std::mutex mutex;
    std::optional<std::int64_t> data_version;  // PRAGMA data_version on the writer
    std::int64_t since_ms = 0;                 // runs updated from then on are announced
  } foreign_watch_;
  // Last: stopped and destroyed first, before anything its evaluations use.
  std::unique_ptr<DependencyWatcher> dependency_watcher_;
  /// Hears of child runs' changes and delivers their parent notifications (same shape).
  std::unique_ptr<DependencyWatcher> notification_watcher_;
  /// Parents whose held child completions wait for their resume rate to allow them.
  DelayedCalls held_resumes_{pool_, [this](const std::string& parent_id) { resume_held_completions(parent_id); }};
};

}  // namespace agentry::engine

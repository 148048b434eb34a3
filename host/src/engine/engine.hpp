#pragma once
// The engine applies commands to runs, and composes the services that act on runs of
// their own accord: live runs (engine/live/), schedules, dependencies, parent
// completion, ask, hooks, the notification outbox and workspace baselines, each in its
// own folder. The Engine is their facade and the RunStarts they start runs through.
//
// Each mutation is one write-queue job that
// re-reads the run on the writer connection, asks core::refusal() whether the
// operation is allowed, writes the change and its audit record, and commits: the
// check and the write are atomic even against another process (the embedded CLI)
// writing the same database. Reads use reader connections and see committed state.

#include "core/byte_budget.hpp"
#include "core/log.hpp"
#include "core/metrics.hpp"
#include "core/pages.hpp"
#include "core/result.hpp"
#include "core/run.hpp"
#include "core/schedule.hpp"
#include "core/schedule_rules.hpp"
#include "engine/ask/ask_service.hpp"
#include "engine/attachments.hpp"
#include "engine/backend_catalog.hpp"
#include "engine/dependencies/dependency_service.hpp"
#include "engine/hooks/after_exit.hpp"
#include "engine/hooks/module_hook.hpp"
#include "engine/lineage.hpp"
#include "engine/leases/lease_keeper.hpp"
#include "engine/leases/run_inbox.hpp"
#include "engine/live/live_runs.hpp"
#include "engine/membership/membership_service.hpp"
#include "engine/parent_completion/child_resume_limits.hpp"
#include "engine/placement/placement.hpp"
#include "engine/placement/start_claims.hpp"
#include "engine/parent_completion/parent_completion_service.hpp"
#include "engine/project_trust.hpp"
#include "engine/triggers/trigger_deliveries.hpp"
#include "engine/requests.hpp"
#include "engine/run_starts.hpp"
#include "engine/schedules/schedule_service.hpp"
#include "engine/task_prompt.hpp"
#include "environments/container_manager.hpp"
#include "engine/tasks/task_service.hpp"
#include "events/event_bus.hpp"
#include "engine/usage_report.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <set>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace agentry::store {
class Store;
class Transaction;
struct RunRequest;
struct WaitingStart;
}  // namespace agentry::store

namespace agentry::engine {

struct PendingInit;
struct PreparedAtInit;

struct EngineConfig {
  std::filesystem::path config_dir;
  std::filesystem::path state_dir;
  std::string controller_id;  // this process, e.g. "daemon-1234-abc123"
  /// How long a live backend has to stop after an interrupt before the host ends the
  /// attempt itself.
  std::chrono::milliseconds interrupt_grace{10000};
  /// What agents are told about their tasks, and the command they report them with.
  TaskPromptSettings task_prompt{};
  /// Auth is on: each session's agent gets a token of its own (engine/live/run_tokens.hpp).
  bool per_run_tokens = false;
  /// How many runs may nest through parentRunId, a top-level run being 1 deep
  /// (AGENTRY_MAX_CALL_DEPTH); creating a deeper one is refused.
  int max_call_depth = default_max_call_depth;
  /// The daemon's stream memory (AGENTRY_STREAM_MEMORY_BYTES), which live runs' queued
  /// backend events share with the timeline windows; null: no shared limit.
  std::shared_ptr<core::ByteBudget> stream_memory{};
  /// The schedules' clock and minimum interval (engine/schedules/schedule_service.hpp).
  ScheduleSettings schedules{};
  /// The environment variables an untrusted project's definitions may read
  /// (AGENTRY_PROJECT_ENV_ALLOW, engine/project_trust.hpp).
  std::vector<std::string> project_env_allow{};
  /// How often children's completions may resume a parent, and how many children a
  /// parent may have that have not ended (engine/parent_completion/child_resume_limits.hpp).
  ChildResumeLimits child_limits{};
  /// How long a member of the store's cluster, or a run's controller, may be silent
  /// (AGENTRY_LEASE_TTL_MS, engine/membership/membership_service.hpp, engine/leases/).
  std::chrono::milliseconds lease_ttl{10000};
  /// Attachment contents (engine/attachments.hpp); empty: state_dir/blobs.
  std::filesystem::path blob_dir{};
  /// What this process offers the runs it may start (engine/placement/placement.hpp).
  PlacementSettings placement{};
  /// How JavaScript module hooks run (engine/hooks/module_hook.hpp): one setting per
  /// process, applied when the engine is made.
  ModuleHookSettings module_hooks{};
};

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

/// What the engine works with; all outlive it.
struct EngineServices {
  store::Store& db;
  const plugin_host::PluginRegistry& plugins;
  core::ThreadPool& pool;  // strands and timers: never blocked by the engine
  events::EventBus& bus;
  core::BlockingPool& blocking;  // hooks, libgit2: whatever waits (core/blocking_pool.hpp)
};

class Engine final : private RunStarts {
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
  /// Re-initializes an initialized run from its definitions as they are now: agent,
  /// assignment, vars, message and tasks are resolved again (an empty `request.agent`:
  /// the run's own agent file, no `request.assignment`: its own assignment file; no
  /// callerCwd: its cwd). Keeps its id, group, parent, dependencies, attachments,
  /// schedule and creation time. CONFLICT unless the run is initialized and not archived.
  core::Result<core::Run> reinit(const std::string& run_id, InitRequest request, const Actor& actor);
  /// init, start and reinit in two steps (engine/pending_init.hpp): the plan resolves and
  /// checks without running a program or writing; finishing runs the module prepare hooks
  /// (blocking, when PendingInit::runs_prepare_hooks()) and writes the run once. A
  /// PendingInit is finished at most once.
  core::Result<std::shared_ptr<PendingInit>> plan_init(const InitRequest& request, const Actor& actor);
  core::Result<std::shared_ptr<PendingInit>> plan_reinit(const std::string& run_id, InitRequest request,
                                                         const Actor& actor);
  core::Result<RunView> finish_init(PendingInit& pending);
  /// What finishes a creation on the thread that takes it, once its write committed (or
  /// failed): the change notification, the schedule's timer, and the run.
  using FinishInit = std::function<core::Result<RunView>()>;
  /// finish_init without waiting for the commit, for a plan that runs no prepare hooks:
  /// `done` is called once, on the store's writer (or here, when the plan fails its
  /// checks), and only hands the FinishInit on; the taker calls it on its own thread.
  void finish_init_later(std::shared_ptr<PendingInit> pending, std::function<void(FinishInit)> done);
  core::Result<core::Run> finish_start(PendingInit& pending);
  core::Result<core::Run> finish_reinit(PendingInit& pending);

  // Lifecycle.
  /// Promotes an initialized run to ready; with `schedule`, also sets it in the same
  /// write (runs.ready's schedule params), so the run is never ready without it.
  core::Result<core::Run> ready(const std::string& run_id, const Actor& actor,
                                const std::optional<core::ScheduleSpec>& schedule = std::nullopt);
  core::Result<core::Run> resume(const std::string& run_id, const ResumeRequest& request, const Actor& actor);
  core::Result<core::Run> abort(const std::string& run_id, const std::string& reason, const Actor& actor);
  core::Result<core::Run> archive(const std::string& run_id, const Actor& actor);
  core::Result<core::Run> unarchive(const std::string& run_id, const Actor& actor);
  core::Result<core::Run> reset(const std::string& run_id, const Actor& actor) override;
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

  // The services, for what is theirs alone.
  ScheduleService& schedules() { return *schedules_; }
  DependencyService& dependencies() { return *dependencies_; }
  ParentCompletionService& parent_completion() { return *parent_completion_; }
  AskService& questions() { return questions_; }
  TaskService& tasks() { return tasks_; }
  MembershipService& membership() { return membership_; }

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

  // Reads.
  core::Result<RunView> view(const std::string& run_id);
  core::Result<RunListView> list(const core::RunQuery& query);
  /// The tokens runs used, per agent, day, group, run or session and model (usage_queries.cpp),
  /// with the price table refreshed from prices.yaml for whoever prices them.
  core::Result<std::vector<UsageRow>> usage(const UsageQuery& query);
  core::Result<std::vector<core::AuditEvent>> audit(const std::string& run_id, const core::EventPageQuery& q);
  core::Result<std::vector<core::TimelineEvent>> timeline(const std::string& run_id, const core::EventPageQuery& q);
  /// The run's last timeline cursor (0 when it has none).
  core::Result<std::int64_t> timeline_last_cursor(const std::string& run_id);
  /// The run's stored events of cursors (after, upto], at most `limit`, oldest first, each
  /// given to `visit` in place (valid during the call); how many. What a stream catching
  /// up reads: it writes frames from the texts and keeps nothing else of them.
  core::Result<std::size_t> visit_timeline(const std::string& run_id, std::int64_t after, std::int64_t upto,
                                           std::size_t limit, const core::TimelineEventVisitor& visit);

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

  /// The daemon's WebSocket URL (ws://host:port/; the HTTP API is the same host and
  /// port), given to the agents of sessions launched from now on as AGENTRY_CONNECT. Not
  /// part of EngineConfig because it is known only once the daemon listens, after the
  /// engine exists (reconciliation must run before anyone is served).
  void set_connect_url(const std::string& url);
  /// The daemon's Unix socket (an absolute path; empty: it listens on none), for the
  /// environments that mount it so an agent without a network can call back. Like the
  /// URL, known only once the daemon listens; set before runs are launched.
  void set_daemon_socket(const std::string& path);

  /// Graceful shutdown: interrupts every live run and waits for them to end. With
  /// `leave_remote_agents` (a daemon stopping; the next one takes over), a run whose
  /// agent can work on without this process (ext/detach.h) is detached instead.
  void stop_live_runs(const std::string& reason, bool leave_remote_agents = false);

  /// Looks for other members' requests now (a wake-up said there are new ones).
  void wake_inbox() { inbox_.wake(); }
  /// Looks soon for starts waiting for a member that this process can claim (another
  /// member recorded one, a slot came free, the sweep).
  void wake_start_claims() { claims_.wake(); }
  /// A run's live timeline as another member drives it: what opens a relay of that
  /// member's stream into this process's feed while `run_id` is followed here (set by
  /// serve: api/holder_relay.hpp). The handle it returns is held as long as the follower.
  using TimelineRelay = std::function<std::shared_ptr<void>(const std::string& run_id)>;
  void set_timeline_relay(TimelineRelay relay) { timeline_relay_ = std::move(relay); }
  /// A follower of `run_id` starts: the relay's handle, or null without one.
  std::shared_ptr<void> relay_timeline(const std::string& run_id) const {
    return timeline_relay_ ? timeline_relay_(run_id) : nullptr;
  }
  /// The URL of the member that holds `run_id`'s lease now, when that is another live
  /// member that advertises one (run_queries.cpp).
  std::optional<std::string> holder_url(const std::string& run_id);

  /// Serving: from now on this process claims waiting starts (an embedded CLI never does).
  void start_claiming() { claims_.start(); }
  /// One look now: claims every waiting start this process can take, and refreshes the
  /// reason of those it cannot; how many runs it started (engine/placement/start_claims.cpp).
  core::Result<int> claim_waiting_starts();

  /// The run a per-run token belongs to, while that run's session lives.
  std::optional<std::string> run_of_token(std::string_view token);

  /// Files handed to runs (engine/attachments.hpp).
  Attachments& attachments() { return attachments_; }
  /// Which projects' definitions the user trusts (engine/project_trust.hpp).
  ProjectTrust& projects() { return projects_; }
  const ProjectTrust& projects() const { return projects_; }
  /// The dedup keys of inbound trigger deliveries (engine/triggers/trigger_deliveries.hpp).
  TriggerDeliveries& trigger_deliveries() { return trigger_deliveries_; }
  const EngineConfig& config() const { return config_; }
  const BackendCatalog& backends() const { return backends_; }
  events::EventBus& bus() { return bus_; }
  std::size_t live_run_count() const { return live_.count(); }
  /// The containers of runs in container environments (`environments status|cleanup`).
  environments::ContainerManager& containers() { return *containers_; }
  /// Audits what was done to a run's container outside its session (a cleanup).
  void record_environment_actions(const std::string& run_id, const std::vector<environments::ContainerAction>& actions,
                                  const Actor& actor);
  /// The engines the container environments name, with their engineArgs (podman when
  /// none does): where this home's containers may be.
  std::map<std::string, std::vector<std::string>> container_engines();
  /// On the blocking pool: removes the `cleanup: {policy: terminal}` containers of this home
  /// that no running run uses (what a killed daemon left), auditing each on its run.
  void sweep_containers_after_restart();
  /// The ids of the running runs and of their groups, whichever process drives them: a
  /// container one of them may use is not cleaned up (an embedded CLI sees no live run).
  std::set<std::string> running_runs_and_groups();

 private:
  /// A write job for one run; subscribers hear of the change after it committed.
  /// Defined in engine/mutate.hpp, which the command files include.
  template <class T, class F>
  core::Result<T> mutate(const std::string& run_id, F&& job);
  /// A planned init's module prepare hooks, if any (blocking), and the check of the
  /// `requiredAt: prepare` vars (creation_commands.cpp).
  core::Result<PreparedAtInit> prepare_pending(PendingInit& pending);
  /// The init's one write: the run, its tasks, what its prepare hooks did, its
  /// dependencies, audit record and schedule. Run again, it sets again what it set.
  core::Result<RunView> write_init(store::Transaction& c, PendingInit& pending, const PreparedAtInit& prepared);
  /// What follows the init's commit, on the caller's thread (the change notification
  /// excepted: mutate() sends it for finish_init).
  core::Result<RunView> after_init_commit(PendingInit& pending, core::Result<RunView> created);
  // RunStarts, for the services (lifecycle_commands.cpp).
  core::Result<core::Run> open_next_session(const std::string& run_id, const ResumeRequest& request,
                                            const Actor& actor, bool automatic) override;
  /// open_next_session, or with `claim` the start of a run that waited for a member
  /// (engine/placement/start_claims.cpp): either opens the session here, or leaves the run
  /// waiting `ready` for a member that can (engine/placement/placement.hpp).
  core::Result<core::Run> start_session(const std::string& run_id, const ResumeRequest& request, const Actor& actor,
                                        bool automatic, const store::WaitingStart* claim);
  void launch_session(const core::Run& run, const std::string& prompt) override;
  bool is_live(const std::string& run_id) const override;
  /// After a write that ended a session outside a live session (an abort, a passive
  /// run's tasks, reconciliation): its afterExit hooks, then the held notification.
  void session_ended(const core::Run& run, int session_index);
  /// Carries out what another member asked of a run this process drives (an abort, an
  /// approval's answer: run_requests.cpp).
  void carry_out(const store::RunRequest& request);
  /// Asks the member driving `run_id` to carry out `kind` with `payload`: recorded in the
  /// caller's write, with a wake-up for that member (run_requests.cpp).
  static void ask_owner(store::Transaction& c, const std::string& run_id, std::string kind,
                        boost::json::object payload);
  /// One run of either reconciliation: true when it was finalized (reconciliation.cpp).
  core::Result<bool> reconcile_run(const std::string& run_id, bool at_startup);

  store::Store& db_;
  BackendCatalog backends_;
  events::EventBus& bus_;
  core::ThreadPool& pool_;
  core::BlockingPool& blocking_;
  EngineConfig config_;
  /// How a run's task prompt names agent-runner. The link is made with the binary
  /// (build, package), so it is looked for once, not with a stat per init.
  const std::string agent_runner_cmd_ = agent_runner_command(config_.task_prompt.agentry_binary);
  Placement placement_{config_.placement, config_.controller_id, config_.lease_ttl};
  /// Before live_, which its runs use: the containers of runs in container environments,
  /// labelled with this home.
  /// Shared with the jobs that remove containers on the blocking pool, which may
  /// outlive the engine's other parts.
  std::shared_ptr<environments::ContainerManager> containers_ =
      std::make_shared<environments::ContainerManager>(config_.state_dir.string());
  /// Before live_, whose runs share it.
  /// Before live_: a live run ending wakes it, until live_ is gone.
  StartClaims claims_{pool_, [this] {
    if (auto claimed = claim_waiting_starts(); !claimed)
      core::log_warn("looking for waiting starts failed", {{"error", claimed.error().message}});
  }};
  LiveRuns live_;
  /// Renews the leases of live_'s runs and fences those another member took.
  LeaseKeeper lease_keeper_{db_, pool_, live_};
  Attachments attachments_{db_, bus_, config_.blob_dir.empty() ? config_.state_dir / "blobs" : config_.blob_dir};
  ProjectTrust projects_{db_, config_.config_dir, config_.project_env_allow};
  TriggerDeliveries trigger_deliveries_{db_};
  /// afterExit of session ends no live session follows through, and the cancellation of
  /// hooks run outside a live session (engine/hooks/after_exit.hpp).
  HookJobs hook_jobs_{blocking_, HookServices{db_, config_.state_dir, &attachments_}, bus_};
  AskService questions_{db_, bus_, backends_};
  TaskService tasks_{db_, bus_, hook_jobs_, config_.state_dir, attachments_};
  MembershipService membership_{db_, pool_, [this] { return static_cast<std::int64_t>(live_.count()); },
                                config_.lease_ttl};
  /// What other members ask of the runs this process drives (a shared store only).
  RunInbox inbox_{db_, pool_, config_.controller_id, [this](const store::RunRequest& r) { carry_out(r); }};
  TimelineRelay timeline_relay_;
  struct ForeignWatch {
    std::mutex mutex;
    std::optional<std::int64_t> data_version;  // the store's change counter
    std::int64_t since_ms = 0;                 // runs updated from then on are announced
    std::map<std::string, std::int64_t> revisions;  // ... each at the revision last announced
  } foreign_watch_;
  // Last: stopped and destroyed first, before anything they use.
  std::unique_ptr<ScheduleService> schedules_;
  std::unique_ptr<ParentCompletionService> parent_completion_;
  std::unique_ptr<DependencyService> dependencies_;
  core::metrics::CollectorHandle metrics_;  // reads live_ and db_: goes first
};

}  // namespace agentry::engine

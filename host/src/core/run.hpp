#pragma once
// The durable values of agentry's domain: a run, its sessions, attempts, tasks and
// the inputs it froze when it was created. Plain data; behaviour lives in lifecycle
// (what may happen) and in the engine (making it happen).

#include "core/attachment.hpp"
#include "core/clock.hpp"
#include "core/container_spec.hpp"
#include "core/dependency.hpp"
#include "core/hook.hpp"
#include "core/notify_target.hpp"
#include "core/usage.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "core/schedule.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::core {

enum class RunStatus { initialized, ready, running, success, blocked, exhausted, aborted, error };

std::string_view to_string(RunStatus status);
std::optional<RunStatus> parse_run_status(std::string_view text);
/// The run's current session has ended (it may still be resumed).
bool is_terminal(RunStatus status);

enum class TaskStatus { pending, in_progress, completed, blocked };

std::string_view to_string(TaskStatus status);
std::optional<TaskStatus> parse_task_status(std::string_view text);

/// The built-in backend that runs no process: status follows the run's tasks.
inline constexpr std::string_view passive_backend = "passive";

/// A launcher wraps the agent's command (e.g. a sandbox or container prefix).
struct FrozenLauncher {
  std::string name;
  std::vector<std::string> command;
  boost::json::object env;
};

/// A writable (or read-only) bind of an execution environment: `source` on the host
/// appears at `target` inside it.
using FrozenMount = Mount;

/// The execution environment a run runs its agent in (definitions/environment.hpp), as
/// the run froze it. A kind this agentry cannot launch is refused when an attempt
/// starts, never run unconfined.
struct FrozenEnvironment {
  std::string name;
  std::string source_path;
  std::string kind;     // "bubblewrap" | "container"
  std::string network;  // "none" | "host" (a container: or a network its engine knows)
  std::string program;  // bubblewrap: the bwrap program
  std::vector<FrozenMount> mounts;
  boost::json::object env;
  std::vector<std::string> extra_args;
  /// kind "container": the container, its engine, steps and cleanup (core/container_spec.hpp).
  std::optional<ContainerSpec> container;
};

/// Everything a run resolved when it was initialized. Later edits to the definition
/// files do not change a run; only reconfigure (while initialized) may.
struct FrozenInputs {
  std::string agent_name;
  std::string agent_source_path;
  std::string assignment_name;  // empty when the run was started from an agent and a message
  std::string assignment_source_path;
  std::string backend;
  std::string model;
  std::string effort;
  int timeout_sec = 0;  // 0 = no limit
  /// What the run may use (core/usage.hpp): the start request's, else the assignment's,
  /// else the agent's; nullopt: no limit.
  std::optional<Budget> budget;
  bool unrestricted = true;
  boost::json::object backend_config;
  std::vector<std::string> extra_args;
  std::optional<FrozenLauncher> launcher;
  /// Where the agent runs: nullopt on the host as the user (the default).
  std::optional<FrozenEnvironment> environment;
  std::string agent_instructions;       // rendered
  std::string assignment_instructions;  // rendered
  // As written, so reconfigure can re-render them with new vars.
  std::string agent_instructions_template;
  std::string assignment_instructions_template;
  std::string caller_instructions;           // rendered: what `run`/`init` print for the caller
  std::string caller_instructions_template;  // as written, so reconfigure can re-render it
  std::string message;                  // rendered
  std::string message_template;         // as given, so reconfigure can re-render
  std::string brief;                    // what the agent receives first
  /// The assignment's tasks as written: [{id, title, body}], re-rendered on reconfigure.
  boost::json::array task_templates;
  boost::json::object vars;             // resolved values, as the agent gets them
  /// Where each var's value came from: name -> { source: cli|web|env|parent|default,
  /// envName?, redacted?, inheritedFromRunId? }. `redacted` marks a value from the
  /// environment (directly or through a parent): stored as is, hidden in projections.
  boost::json::object var_sources;
  boost::json::object var_specs;        // the assignment's declarations, for reconfigure
  boost::json::object cli_vars;         // as given by the caller, for reconfigure
  std::vector<std::string> locked_fields;
  int max_attempts_per_session = 4;
  /// Each session's first prompt lists the tasks and how to report them (engine/task_prompt.hpp);
  /// off when the agent or the assignment says `taskPrompt: false`.
  bool task_prompt = true;
  /// The run has a parent and asked for a parent-completion notification: each of its
  /// sessions tells the parent, once, how it ended (engine/parent_completion/parent_notifications.hpp).
  bool notify_parent_on_complete = false;
  /// Where to say that the run ended or needs the user: the agent's, the assignment's
  /// and the request's targets, in that order (core/notify_target.hpp).
  std::vector<NotifyTarget> notify;
  /// Lifecycle hooks: the assignment's, then each task definition's (core/hook.hpp).
  std::vector<HookSpec> hooks;
  /// Hooks the run was defined with that agentry could not carry over when it imported
  /// the run ("phase:hookId (why)"): such a run is never started again (core/lifecycle.hpp).
  std::vector<std::string> hooks_not_imported;
  /// The labels a member must have to run it: the agent's `placement.labels`, then the
  /// start request's (core/placement.hpp).
  std::vector<std::string> placement_labels;
};

boost::json::value to_json(const FrozenInputs& inputs);
FrozenInputs frozen_inputs_from_json(const boost::json::value& value);

/// A follow-up message queued while a run is live, delivered as the prompt of the
/// session that starts when the live one ends.
struct QueuedMessage {
  std::string id;
  std::string run_id;
  std::string text;
  boost::json::object source;  // who queued it: {"actor": "api"}
  std::string created_at;
};

/// A question the agent of a live attempt is waiting on (a command to run, a file
/// to change). It exists only while the attempt that asked is alive: the process driving
/// the run holds it, and the store keeps it beside the run for every member to show.
struct PendingApproval {
  std::string approval_id;
  std::string kind;  // "command", "file_change", "tool", ...
  std::string summary;
  boost::json::value details;  // null when the backend sent none
  std::string requested_at;
};

/// Who holds a running run's lease (engine/leases/): the controller driving it (a member
/// daemon, or an embedded CLI), the lease's epoch and when it expires unless renewed.
struct RunOwner {
  std::string daemon_id;
  std::string name;  // the member's name; the id again for a controller that is no member
  std::int64_t epoch = 0;
  std::string lease_expires_at;  // ISO 8601, by the database's clock
};

/// A child run's promise to tell its parent how one of its sessions ended.
struct ParentNotification {
  std::string child_run_id;
  int child_session_index = 0;
  std::string parent_run_id;
  std::string state;     // "pending", "delivered", "skipped"
  std::string reason;    // why skipped (a reason code), or how a delivery was recognised
  std::string delivery;  // delivered: "queued_message" or "resumed"
  std::string created_at;
  std::string updated_at;
  std::optional<std::string> delivered_at;
};

/// One delivery of a completion notification as views show it (RunDetail.notifications):
/// the target redacted (core::redacted_target), never its secret.
struct NotificationDelivery {
  std::int64_t id = 0;
  std::string event;
  std::string target;
  std::string idempotency_key;
  std::string state;  // pending | delivered | failed
  int attempts = 0;
  std::string last_error;
  std::string created_at;
  std::optional<std::string> delivered_at;
  std::optional<std::string> next_attempt_at;  // while pending
};

/// What a run changed in its work tree since its baseline (workspace/baseline.hpp),
/// refreshed at the end of each attempt.
struct DiffStat {
  std::int64_t files = 0;
  std::int64_t additions = 0;
  std::int64_t deletions = 0;
  std::string updated_at;
};

struct Run {
  std::string id;
  RunStatus status = RunStatus::initialized;
  std::string status_reason;  // why the run is in this status, when that needs saying
  std::string created_at;
  std::string updated_at;
  std::optional<std::string> started_at;
  std::optional<std::string> finished_at;
  std::string cwd;
  std::string repo_root;  // the enclosing git work tree, or empty
  std::string run_group_id;
  std::optional<std::string> parent_run_id;
  std::optional<std::string> name;
  std::optional<std::string> note;
  bool pinned = false;
  bool archived = false;
  std::optional<std::string> archived_at;
  std::optional<std::string> backend_session_id;
  /// Who drives the live session: "<daemon|cli>-<pid>-<suffix>"; empty when nobody does.
  std::string controller_id;
  int session_count = 0;
  int attempt_count = 0;
  std::int64_t revision = 0;  // +1 on every persisted change
  FrozenInputs frozen;
  /// Derived, never written with the run row: how many follow-up messages wait for the
  /// next session (counted by the store whenever it reads a run).
  int queued_message_count = 0;
  /// The waiting messages themselves, oldest first. Only views (RunDetail) load them;
  /// elsewhere this is empty and queued_message_count is the truth.
  std::vector<QueuedMessage> queued_messages;
  /// Derived, never written with the run row: how many attachments the run holds
  /// (counted by the store whenever it reads a run; RunSummary.attachmentCount).
  int attachment_count = 0;
  /// Derived, never written with the run row: the questions its agent waits on an
  /// answer to (run_approvals rows; RunSummary.pendingApprovalCount).
  int pending_approval_count = 0;
  /// Views only: the run's latest parent-completion notification, if it has one.
  std::optional<ParentNotification> parent_notification;
  /// Derived, views only: who holds the run's lease now; nobody when it is not running.
  std::optional<RunOwner> owner;
  /// Derived, views only: the approvals the live attempt waits on.
  std::vector<PendingApproval> pending_approvals;
  /// Derived, views only: the run's completion notifications and how their delivery went.
  std::vector<NotificationDelivery> notifications;
  /// Derived: what the run waits on, each as it stands now (summaries and views load
  /// them; elsewhere empty), and, views only, the runs that wait on this one.
  std::vector<DependencyStatus> dependencies;
  std::vector<Dependent> dependents;
  /// Views only: the run's attachments, oldest first (store/attachment_repository.hpp).
  std::vector<Attachment> attachments;
  /// Views only: the latest hook executions, oldest first (store/hook_audit_repository.hpp).
  std::vector<HookAudit> hook_audits;
  /// Views only: the state the run's module hooks keep (their `mutate.state`), {} when none.
  boost::json::object hook_data;
  /// Stored beside the run (store/schedule_repository.hpp), loaded by views and lists
  /// only: RunSummary.schedule and scheduleState. Never written with the run row.
  std::optional<Schedule> schedule;
  /// Set when the stored row could not be read whole (say, frozen inputs written by a
  /// faulty build): why. Such a run is still listed, shown and deletable, never acted on.
  std::optional<std::string> damaged;
  /// The unreadable frozen inputs as stored, written back unchanged on archive.
  std::string damaged_frozen_json;
  /// Listings (RunRepository::list) read only the frozen inputs a summary shows
  /// (store/frozen_summary.hpp): such a run is for showing; the store refuses to write it.
  bool frozen_summary_only = false;
  /// Stored beside the row (RunRepository::set_diffstat), never written with it: the
  /// run's changes since its baseline as of its last attempt's end; nullopt before that,
  /// or when its cwd is not in a git work tree.
  std::optional<DiffStat> diffstat;
  /// Stored beside the row (store/usage_repository.hpp), never written with it: the
  /// tokens the run's backends reported, per model.
  std::vector<ModelUsage> usage;
};

struct Session {
  std::string run_id;
  int index = 0;
  std::string status;  // "running" or the run status the session ended with
  std::string started_at;
  std::optional<std::string> ended_at;
  std::optional<std::string> backend_session_id;
  std::string end_reason;
  std::string prompt;
  /// What ended the session: "agent" (its attempts), "tasks" (a passive run's task
  /// change), "user" (an abort), "shutdown" (the daemon stopped), "restart" (found
  /// orphaned by reconciliation: its controller was gone); empty while running. Queued messages are delivered after
  /// every end but "user".
  std::string ended_by{};
  /// What opened the session when the daemon did on its own: a child's completion or queued
  /// messages that carry one (engine/parent_completion/parent_notifications.hpp). Empty otherwise.
  boost::json::object source{};
  /// Derived, never stored with the session: its attempts' numbers (first, last) and how
  /// many it has; 0 when it has none. Filled by SessionRepository::latest (run lists) and
  /// with_attempt_range (events/projections.hpp) for RunSummary's session briefs.
  int first_attempt_number{};
  int last_attempt_number{};
  int attempt_count{};
};

struct Attempt {
  std::string run_id;
  int number = 1;  // monotonic across the run
  int session_index = 0;
  int index_in_session = 0;
  std::string started_at;
  std::optional<std::string> ended_at;
  std::string outcome;  // empty while running
};

struct Task {
  std::string run_id;
  std::string id;
  std::string title;
  std::string body;
  TaskStatus status = TaskStatus::pending;
  std::string notes;
  std::string source;  // "inline", "definition:<name>", "file:<path>", "added"
  int position = 0;
  std::string created_at;
  std::string updated_at;
};

struct AuditEvent {
  std::string run_id;
  std::int64_t cursor = 0;  // per-run, monotonic, assigned by the store
  std::string type;         // e.g. "run.initialized", "task.status_changed"
  std::string actor;        // "api", "cli", "engine", "daemon"
  std::string at;
  boost::json::object data;
};

struct TimelineEvent {
  std::string run_id;
  std::int64_t cursor = 0;  // 0 for an ephemeral event
  std::string kind;
  std::optional<int> attempt_number;
  TimeText at;
  boost::json::object payload;
  /// Streamed to live subscribers, never stored (token deltas).
  bool ephemeral = false;
  /// The payload as serialized once for the store; live frames reuse it. Set by
  /// TimelineRepository when it writes the event.
  std::string payload_json;
  /// Instead of payload_json: a backend event's text, borrowed while its batch is written.
  /// The backend event owns it and outlives the write job, a retry of it and its commit's
  /// publishing (engine/live/attempt_events.cpp), so the store's writer neither copies nor
  /// frees the payloads it stores and streams.
  std::string_view borrowed_payload_json;
  /// The payload's text: the borrowed one, else payload_json.
  std::string_view payload_text() const {
    return borrowed_payload_json.empty() ? std::string_view(payload_json) : borrowed_payload_json;
  }
};

/// A stored timeline event read in place: its texts point into what the store read and
/// are valid only during the call that gives it. For readers that only copy the events
/// on (a stream catching up writes frames from them), which a TimelineEvent would make
/// copy every text twice.
struct TimelineEventView {
  std::int64_t cursor = 0;
  std::string_view kind;
  std::string_view at;
  std::optional<int> attempt_number;
  std::string_view payload_json;
};
using TimelineEventVisitor = std::function<void(const TimelineEventView&)>;

}  // namespace agentry::core

#pragma once
// Running a run's frozen lifecycle hooks (core/hook.hpp) for one phase, and recording
// what they did. The JSON contract (docs/definitions.md "Hooks"):
//
//   stdin:  { phase, hookId, run: {runId, name, status, agent, assignment, cwd, repo,
//             parentRunId, runGroupId, pinned}, options, ...phase info (attempt, task,
//             status, prompt) }
//   stdout: empty, or one JSON object { block?, prompt?, name?, note?, pinned?, refuse?,
//           attachments?: [path | {path, name?}] } (files to attach to the run)
//   exit 0 = a verdict; anything else (an exit status, a timeout, output that is not a
//   JSON object or over 64 KiB) = the hook failed.
//
// A failed hook blocks where hooks gate (prepare, beforeAttempt, taskTransition: a gate
// that cannot answer does not let through) and is only recorded elsewhere.
// Blocking calls: they run on the blocking pool (core/blocking_pool.hpp: a step of the
// run's strand, or a HookJobs job) or, for taskTransition, on the server's blocking
// workers, each hook bounded by its timeout (at most 120 s) and by
// HookServices::cancelled: an abort of the run or the daemon stopping kills the hook's
// process group within ~100 ms (outcome "cancelled"), so no hook holds its run hostage.

#include "core/hook.hpp"
#include "core/run.hpp"
#include "engine/hooks/module_hook.hpp"

#include <boost/json/object.hpp>

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace agentry::store {
class Store;
class Transaction;
}  // namespace agentry::store

namespace agentry::engine {

struct HookInvocation {
  core::HookPhase phase = core::HookPhase::prepare;
  std::map<std::string, std::string> facts;  // what `when` filters on
  boost::json::object info;                  // phase fields added to stdin
  std::optional<std::string> task_id;        // taskTransition: a task's own hooks see only it
  std::string prompt;                        // beforeAttempt: the prompt, which hooks may rewrite
  /// Attempt phases and afterExit: the session, and the attempt (afterExit: none, its
  /// session's last), giving the facts `sessionIndex` and `attemptIndexInSession`.
  std::optional<int> session_index;
  std::optional<int> attempt_number;
};

class Attachments;

struct HookServices {
  store::Store& db;
  std::filesystem::path state_dir;  // worktrees go under <state_dir>/worktrees
  Attachments* attachments = nullptr;  // where a hook's `attachments` go; null: refused
  /// Polled while hooks run (from the running thread): a reason once they must stop.
  /// The running hook's process group is killed and the rest are not started; each is
  /// audited "cancelled". Empty: never.
  std::function<std::optional<std::string>()> cancelled{};
};

/// A cancellation another thread can set (an abort, a shutdown) and hooks poll.
/// Thread-safe; the first reason stays.
class HookCancel {
 public:
  void cancel(const std::string& reason);
  std::optional<std::string> reason() const;

 private:
  std::atomic<bool> set_{false};
  mutable std::mutex mutex_;
  std::string reason_;
};

struct HookPhaseResult {
  std::vector<core::HookAudit> audits;
  std::optional<std::string> stop;      // the first block or refusal ("hook 'x' ...: reason")
  bool cancelled = false;               // a hook was cancelled (HookServices::cancelled)
  std::optional<std::string> prompt;    // rewritten (afterAttempt: the next attempt's)
  bool reinvoke = false;                // afterAttempt: a module asked for one more attempt
  std::optional<std::string> name, note;
  std::optional<bool> pinned;
  /// git-worktree: {repoRoot, path, cwd, branch, baseCommit}; agent-runner's form adds
  /// {form: "agent-runner", name, createdWorktree, createdBranch} (git_worktree_hook.hpp).
  std::optional<boost::json::object> worktree;
  std::optional<std::string> worktree_path_var;  // git-worktree at prepare, their form: the var worktree_path
  /// Module hooks: their `mutate.state`, merged shallowly in order (merged into the run's
  /// stored state when recorded), and the task changes they asked for.
  boost::json::object state;
  std::vector<HookTaskPatch> patch_tasks;
  bool any() const { return !audits.empty(); }
};

/// A module prepare hook: it runs when the run is initialized, before it is first
/// written (engine/hooks/prepare_at_init.hpp), never when it starts. Built-in and `run:`
/// prepare hooks run at the first start.
bool runs_at_init(const core::HookSpec& hook);

/// Whether an afterAttempt hook of `run` may ask for another attempt (a module hook, or
/// the command built-in's json form): what follows an attempt then waits for them
/// (AttemptContext::defer_decision).
bool after_attempt_may_reinvoke(const core::Run& run);

/// Whether any hook of `run` may run at `phase` (at prepare: other than runs_at_init ones).
bool has_hooks(const core::Run& run, core::HookPhase phase);

/// Runs every hook of `run` for the phase whose `when` matches, in declaration order,
/// stopping at the first that blocks or refuses. Rewrites chain: each later hook sees
/// the prompt as the earlier ones left it.
HookPhaseResult run_hooks(const core::Run& run, const HookInvocation& invocation, const HookServices& services);

/// Records `result` in the write transaction: its audits, and the name, note, pin,
/// worktree (with the run's new cwd), hook state and task patches the hooks set, with
/// audit records (actor `hook`). The caller
/// saves the run when this returns true (the row changed).
bool record_hook_results(store::Transaction& c, core::Run& run, const HookPhaseResult& result);

/// The state the run's module hooks keep (runs.hook_data_json): an empty object when none.
boost::json::object run_hook_data(store::Transaction& c, const std::string& run_id);

/// The run's worktree record (runs.worktree_json), if it has one.
std::optional<boost::json::object> run_worktree(store::Transaction& c, const std::string& run_id);

/// Removes a deleted run's worktree per the policy of workspace/worktree.hpp (agentry's
/// form) or workspace/named_worktree.hpp (agent-runner's: only what the run created).
/// Blocking. Both are in git_worktree_hook.cpp.
void remove_worktree(const boost::json::object& worktree, const std::string& run_id);

}  // namespace agentry::engine

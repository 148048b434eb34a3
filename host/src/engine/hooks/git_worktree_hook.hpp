#pragma once
// The git-worktree built-in, in its two forms (docs/definitions.md "Built-ins"), chosen
// by its `with` keys when the definition loaded (core::is_git_worktree_repo_form):
//
//   agentry's   {base?}: at prepare, a new branch agentry/<runId> at `base` and a
//               worktree of it under <state_dir>/worktrees/<runId> (workspace/worktree.hpp).
//   agent-runner's {repo, from, branch, path, collision?}: at prepare or beforeAttempt,
//               the worktree at `path` on `branch` (an existing branch is reused, else made
//               from `from`), the values templated when the hook runs
//               (workspace/named_worktree.hpp); at prepare it also sets the var
//               worktree_path.
//
// Either way the run's cwd moves into the worktree (HookPhaseResult::worktree, recorded
// by record_hook_results; later hooks of the phase see it at once), and the run's
// worktree record (runs.worktree_json) says what the run created, so that deleting the
// run removes that and nothing else (remove_worktree, hook_runner.hpp).

#include "core/hook.hpp"
#include "core/run.hpp"
#include "engine/hooks/hook_runner.hpp"

namespace agentry::engine {

/// Runs the hook (blocking: libgit2 writes the worktree): fills the audit and, when it
/// succeeded, result.worktree (and, at prepare in agent-runner's form,
/// result.worktree_path_var).
void run_git_worktree(const core::Run& run, const core::HookSpec& hook, const HookServices& services,
                      core::HookAudit& audit, HookPhaseResult& result);

}  // namespace agentry::engine

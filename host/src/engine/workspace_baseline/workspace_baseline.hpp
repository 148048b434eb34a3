#pragma once
// Where runs meet their workspace (host/src/workspace): the baseline recorded when a run
// first starts, and the diffstat refreshed when each attempt ends. Both are libgit2 work:
// they run on the blocking pool as steps of the run's strand (engine/live/live_run.hpp),
// never on a strand thread, a request worker or the writer, and never fail the run: a
// problem is logged and the run goes on without a baseline or diffstat.

#include "core/run.hpp"
#include "engine/forward.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>

namespace agentry::engine {

/// At the start of a run's first session, before its agent runs: the state of its work
/// tree, user's uncommitted changes included (workspace/baseline.hpp).
void record_workspace_baseline(const core::Run& run);

/// After an attempt ended: the run's changes since its baseline, stored on the run and
/// published (RunSummary.diffstat). Nothing when the run has no baseline.
void refresh_workspace_diffstat(store::Store& db, events::EventBus& bus, const core::Run& run);

/// After a run was deleted: removes its baseline ref and then, when the run had its own
/// worktree (the git-worktree hook), the worktree and its branch if unchanged
/// (workspace/worktree.hpp), on the blocking pool.
void forget_workspace_baseline(core::BlockingPool& pool, const std::string& cwd, const std::string& run_id,
                               std::optional<boost::json::object> worktree = std::nullopt);

}  // namespace agentry::engine

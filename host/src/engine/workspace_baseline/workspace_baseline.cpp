#include "engine/workspace_baseline/workspace_baseline.hpp"
#include "engine/hooks/hook_runner.hpp"

#include "core/clock.hpp"
#include "core/blocking_pool.hpp"
#include "core/log.hpp"
#include "events/event_bus.hpp"
#include "store/store.hpp"
#include "store/run_repository.hpp"
#include "workspace/baseline.hpp"
#include "workspace/diff.hpp"

#include <chrono>

namespace agentry::engine {

void record_workspace_baseline(const core::Run& run) {
  const auto started = std::chrono::steady_clock::now();
  auto baseline = workspace::record_baseline(run.cwd, run.id);
  if (!baseline) {
    core::log_warn("no workspace baseline for run", {{"runId", run.id}, {"error", baseline.error().message}});
    return;
  }
  if (!*baseline || !(*baseline)->created) return;
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  core::log_info("recorded workspace baseline", {{"runId", run.id},
                                                 {"ref", (*baseline)->ref},
                                                 {"commit", (*baseline)->commit},
                                                 {"ms", std::to_string(ms)}});
}

void refresh_workspace_diffstat(store::Store& db, events::EventBus& bus, const core::Run& run) {
  auto totals = workspace::run_diffstat(run.cwd, run.id, workspace::Limits{});
  if (!totals) return;
  core::DiffStat stat{static_cast<std::int64_t>(totals->files), static_cast<std::int64_t>(totals->additions),
                      static_cast<std::int64_t>(totals->deletions), core::now_iso8601()};
  auto written = db.write<bool>([&](store::Transaction& c) -> core::Result<bool> {
    return c.runs().set_diffstat(run.id, stat);
  });
  if (!written) {
    core::log_warn("cannot store the run's diffstat", {{"runId", run.id}, {"error", written.error().message}});
    return;
  }
  if (*written) bus.run_changed(run.id);
}

void forget_workspace_baseline(core::BlockingPool& pool, const std::string& cwd, const std::string& run_id,
                               std::optional<boost::json::object> worktree) {
  if (cwd.empty()) return;
  pool.post([cwd, run_id, worktree = std::move(worktree)] {
    workspace::remove_baseline(cwd, run_id);
    if (worktree) remove_worktree(*worktree, run_id);
  });
}

}  // namespace agentry::engine

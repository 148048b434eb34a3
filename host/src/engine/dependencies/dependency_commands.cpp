// DependencyService: adding, removing and clearing a run's dependencies, and starting
// a ready run once everything it waits on has ended success. The start gate itself is
// in Engine::open_next_session (lifecycle_commands.cpp), shared by every start and resume.

#include "engine/dependencies/dependency_service.hpp"

#include "engine/mutate_run.hpp"
#include "engine/run_change_watcher.hpp"
#include "engine/run_starts.hpp"

#include "core/log.hpp"
#include "engine/dependencies/dependency_checks.hpp"
#include "engine/mutation_support.hpp"
#include "store/dependency_repository.hpp"
#include "store/store.hpp"

#include <set>

namespace agentry::engine {
using core::Run;
namespace json = boost::json;

DependencyService::DependencyService(store::Store& db, events::EventBus& bus, core::ThreadPool& pool, RunStarts& runs)
    : db_(db), bus_(bus), pool_(pool), runs_(runs) {}

DependencyService::~DependencyService() { stop(); }

void DependencyService::stop() {
  if (watcher_) watcher_->stop();
}

core::Result<Run> DependencyService::add(const std::string& run_id, core::Dependency dependency, const Actor& actor) {
  return detail::mutate_run<Run>(db_, bus_, run_id, [&](store::Transaction& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (auto ok = detail::check_allowed(core::Operation::edit_dependencies, *run, "change the dependencies of"); !ok)
      return ok.failure();
    auto added = detail::add_dependency_row(c, *run, dependency);
    if (!added) return added.failure();
    detail::save_with_audit(c, *run, "run.dependency_added", actor,
                            {{"type", core::to_string(added->type)}, {"target", added->target}});
    return run;
  });
}

core::Result<Run> DependencyService::remove(const std::string& run_id, core::DependencyType type,
                                            const std::string& target, const Actor& actor) {
  return detail::mutate_run<Run>(db_, bus_, run_id, [&](store::Transaction& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (auto ok = detail::check_allowed(core::Operation::edit_dependencies, *run, "change the dependencies of"); !ok)
      return ok.failure();
    const std::string name = core::describe(core::Dependency{type, target, {}});
    if (!c.dependencies().remove(run_id, type, target))
      return core::fail(core::ErrorCode::not_found, "run " + run_id + " does not depend on " + name,
                        {{"runId", run_id}, {"dependency", name}});
    detail::save_with_audit(c, *run, "run.dependency_removed", actor,
                            {{"type", core::to_string(type)}, {"target", target}});
    return run;
  });
}

core::Result<Run> DependencyService::clear(const std::string& run_id, const Actor& actor) {
  return detail::mutate_run<Run>(db_, bus_, run_id, [&](store::Transaction& c) -> core::Result<Run> {
    auto run = detail::load_run(c, run_id);
    if (!run) return run.failure();
    if (auto ok = detail::check_allowed(core::Operation::edit_dependencies, *run, "change the dependencies of"); !ok)
      return ok.failure();
    const int removed = c.dependencies().remove_all(run_id);
    if (removed == 0) return run;  // nothing changed: no revision, no audit
    detail::save_with_audit(c, *run, "run.dependencies_cleared", actor, {{"removed", removed}});
    return run;
  });
}

void DependencyService::enable_auto_start() {
  if (watcher_) return;
  watcher_ = std::make_unique<RunChangeWatcher>(
      bus_, pool_, [this](const std::vector<std::string>& run_ids) { changed(run_ids); });
  // The startup sweep: runs whose dependencies were met while no daemon was serving
  // (or whose start a stopping daemon never made).
  auto waiting = db_.read([](store::Transaction& c) -> core::Result<std::vector<std::string>> {
    return c.dependencies().runs_with_dependencies();
  });
  if (!waiting) {
    core::log_error("cannot list runs with dependencies", {{"error", waiting.error().message}});
    return;
  }
  for (const auto& id : *waiting) watcher_->enqueue(id);
}

namespace {

/// Ready, not archived, with dependencies, all met: what start_if_met starts.
bool due(store::Transaction& c, const std::string& run_id, const std::optional<store::RunPoint>& point) {
  if (!point || point->archived || point->status != core::RunStatus::ready) return false;
  auto statuses = detail::dependencies_of(c, run_id);
  if (statuses.empty()) return false;
  for (const auto& s : statuses)
    if (!s.satisfied) return false;
  return true;
}

}  // namespace

void DependencyService::changed(const std::vector<std::string>& run_ids) {
  struct Look {
    std::vector<std::string> waiting;  // on some other run of the batch
    std::vector<std::string> due;      // of the batch
  };
  // One read for the whole batch: most changed runs are waited on by nobody and wait on
  // nothing, and a read each would cost a burst of creations a transaction per run.
  auto look = db_.read([&](store::Transaction& c) -> core::Result<Look> {
    std::set<std::string> waiting;
    Look out;
    // No dependency anywhere: nobody waits on these runs, and none of them waits (the
    // usual store, where this saves four queries per changed run).
    if (!c.dependencies().any()) return out;
    for (const auto& run_id : run_ids) {
      auto point = c.dependencies().point(run_id);
      // A deleted run: whoever named it by id now waits on a missing run. Its group's
      // waiters are looked at even when it is archived (it no longer counts there), and so
      // are those of every group it was moved out of: either may have made them ready.
      std::vector<std::string> groups = c.dependencies().groups_left(run_id);
      if (point) groups.push_back(point->group_id);
      for (const auto& e : c.dependencies().naming(run_id, ""))
        if (e.run_id != run_id) waiting.insert(e.run_id);
      for (const auto& group : groups)
        for (const auto& e : c.dependencies().naming("", group))
          if (e.run_id != run_id) waiting.insert(e.run_id);
      if (due(c, run_id, point)) out.due.push_back(run_id);
    }
    out.waiting.assign(waiting.begin(), waiting.end());
    return out;
  });
  if (!look) {
    core::log_error("cannot read the runs waiting on changed runs",
                    {{"runId", run_ids.front()}, {"runs", std::to_string(run_ids.size())}, {"error", look.error().message}});
    return;
  }
  // Their dependencyState may have changed with these runs; nothing of theirs was written.
  for (const auto& id : look->waiting) {
    bus_.notify(events::Channel::summary, id);
    bus_.notify(events::Channel::detail, id);
  }
  for (const auto& id : look->due) start(id);
  // The batch's own were looked at in the read above.
  const std::set<std::string> batch(run_ids.begin(), run_ids.end());
  for (const auto& id : look->waiting)
    if (!batch.contains(id)) start_if_met(id);
}

void DependencyService::start_if_met(const std::string& run_id) {
  // A read first: most changes concern runs that are not waiting, and those cost the
  // writer nothing. The write re-checks everything (open_next_session).
  auto waiting = db_.read([&](store::Transaction& c) -> core::Result<bool> {
    return due(c, run_id, c.dependencies().point(run_id));
  });
  if (waiting && *waiting) start(run_id);
}

void DependencyService::start(const std::string& run_id) {
  auto started = runs_.open_next_session(run_id, ResumeRequest{}, Actor{"daemon"}, /*automatic=*/true);
  const auto* reason = started ? nullptr : started.error().details.if_contains("reason");
  if (started) {
    core::log_info(started->status == core::RunStatus::running ? "started a run whose dependencies are met"
                                                                : "a run whose dependencies are met waits for a member",
                   {{"runId", run_id}});
  } else if (reason == nullptr || (*reason != "not_waiting" && *reason != "waiting_for_member")) {
    // Say why a run that was due could not start (say, its backend is gone); it stays
    // ready, and a later change or the next startup tries again.
    core::log_warn("cannot start a run whose dependencies are met",
                   {{"runId", run_id}, {"error", started.error().message}});
  }
}

}  // namespace agentry::engine

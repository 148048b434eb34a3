// What the operator does to the containers of runs (`agentry environments status|cleanup`,
// the restart's sweep): the engine's side is the audit record on the run a removed
// container belonged to; and the one writer of those records (environment_audit.hpp).

#include "engine/engine.hpp"
#include "engine/environment_audit.hpp"
#include "definitions/loader.hpp"
#include "engine/mutation_support.hpp"
#include "store/store.hpp"
#include "store/run_repository.hpp"

namespace agentry::engine {

void append_environment_audits(store::Store& db, const std::string& run_id,
                               const std::vector<environments::ContainerAction>& actions, const Actor& actor) {
  if (run_id.empty() || actions.empty()) return;
  auto written = db.write<bool>([&](store::Transaction& c) -> core::Result<bool> {
    if (!c.runs().get(run_id)) return false;  // deleted since: nothing to record it on
    for (const auto& action : actions) detail::append_audit(c, run_id, action.type, actor, action.data);
    return true;
  });
  if (!written)
    core::log_error("cannot record what was done to a run's container", {{"runId", run_id}, {"error", written.error().message}});
}

void Engine::record_environment_actions(const std::string& run_id,
                                        const std::vector<environments::ContainerAction>& actions, const Actor& actor) {
  append_environment_audits(db_, run_id, actions, actor);
}

std::map<std::string, std::vector<std::string>> Engine::container_engines() {
  std::map<std::string, std::vector<std::string>> engines;
  for (const auto& environment : definitions::list_environments(projects().roots_for(std::nullopt)).entries)
    if (environment.container) engines.emplace(environment.container->engine, environment.container->engine_args);
  if (engines.empty()) engines.emplace("podman", std::vector<std::string>{});
  return engines;
}

void Engine::sweep_containers_after_restart() {
  if (!containers_->ever_made()) return;  // nothing to look for, and the engine's CLI is dear to start
  // Read here (the engine may be gone when the job runs; the store and the manager not).
  blocking_.post([containers = containers_, &db = db_, engines = container_engines(), busy = running_runs_and_groups()] {
    std::vector<std::string> errors;
    for (const auto& record : containers->cleanup(engines, false, busy, errors)) {
      core::log_info("removed a container a previous daemon left", {{"container", record.state.name}});
      if (auto run = record.state.labels.find("agentry.run"); run != record.state.labels.end())
        append_environment_audits(
            db, run->second,
            {{"environment.container_removed", {{"container", record.state.name}, {"why", "left by a stopped agentry"}}}},
            Actor{"agentry"});
    }
    for (const auto& error : errors)
      if (error.find("not installed") == std::string::npos)
        core::log_warn("cannot sweep containers after the restart", {{"error", error}});
  });
}

std::set<std::string> Engine::running_runs_and_groups() {
  std::set<std::string> out;
  auto read = db_.read([&](store::Transaction& c) -> core::Result<bool> {
    for (const auto& id : c.runs().ids_with_status(core::RunStatus::running)) {
      out.insert(id);
      if (auto run = c.runs().get(id)) out.insert(run->run_group_id);
    }
    return true;
  });
  if (!read) core::log_error("cannot list running runs", {{"error", read.error().message}});
  return out;
}

}  // namespace agentry::engine

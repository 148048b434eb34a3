// What the operator does to the containers of runs (`agentry environments status|cleanup`):
// the engine's side is the audit record on the run a removed container belonged to.

#include "engine/engine.hpp"
#include "engine/mutation_support.hpp"
#include "store/store.hpp"
#include "store/run_repository.hpp"

namespace agentry::engine {

void Engine::record_environment_actions(const std::string& run_id,
                                        const std::vector<environments::ContainerAction>& actions, const Actor& actor) {
  if (run_id.empty() || actions.empty()) return;
  auto written = db_.write<bool>([&](store::Transaction& c) -> core::Result<bool> {
    if (!c.runs().get(run_id)) return false;  // deleted since: nothing to record it on
    for (const auto& action : actions) detail::append_audit(c, run_id, action.type, actor, action.data);
    return true;
  });
  if (!written)
    core::log_error("cannot record what was done to a run's container", {{"runId", run_id}, {"error", written.error().message}});
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

// The containers of this agentry home, found by their agentry.owner label: listed for
// `environments status`, removed by `environments cleanup` and the restart's sweep.

#include "environments/container_manager.hpp"

namespace agentry::environments {

std::vector<ContainerRecord> ContainerManager::list(const std::map<std::string, std::vector<std::string>>& engines,
                                                    std::vector<std::string>& errors) {
  std::vector<ContainerRecord> out;
  for (const auto& [engine_name, engine_args] : engines) {
    const ContainerEngine engine(engine_name, engine_args);
    EngineResult failure;
    auto states = engine.list("agentry.owner=" + owner_, &failure);
    if (!failure.error.empty()) errors.push_back(failure.error);
    for (auto& state : states) {
      ContainerRecord record{engine_name, std::move(state), {}};
      std::lock_guard lock(mutex_);
      if (auto it = users_.find(record.state.name); it != users_.end())
        record.users.assign(it->second.begin(), it->second.end());
      out.push_back(std::move(record));
    }
  }
  return out;
}

std::vector<ContainerRecord> ContainerManager::cleanup(const std::map<std::string, std::vector<std::string>>& engines,
                                                       bool all, const std::set<std::string>& busy,
                                                       std::vector<std::string>& errors) {
  std::vector<ContainerRecord> removed;
  for (auto& record : list(engines, errors)) {
    if (!all && record.state.labels["agentry.cleanup"] != "terminal") continue;
    if (busy.count(record.state.labels["agentry.run"]) || busy.count(record.state.labels["agentry.group"])) continue;
    auto container_lock = lock_for(record.state.name);
    std::lock_guard serial(*container_lock);
    {
      std::lock_guard lock(mutex_);
      if (auto it = users_.find(record.state.name); it != users_.end() && !it->second.empty()) continue;
    }
    auto engine_args = engines.at(record.engine);
    auto r = ContainerEngine(record.engine, engine_args).remove(record.state.name);
    if (r.ok) removed.push_back(std::move(record));
    else errors.push_back("cannot remove container " + record.state.name + ": " + r.error);
  }
  return removed;
}

}  // namespace agentry::environments

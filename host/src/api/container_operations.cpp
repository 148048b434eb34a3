// environments.status and environments.cleanup: the containers this agentry made for runs
// in container environments (environments/container_manager.hpp). Both run the engine's
// CLI, so they answer from the transport's blocking pool, never a request worker.

#include "api/operations.hpp"

namespace agentry::api {
namespace json = boost::json;
using core::Result;

namespace {

json::object record_json(const environments::ContainerRecord& r) {
  auto label = [&](const char* key) -> json::value {
    auto it = r.state.labels.find(key);
    return it == r.state.labels.end() ? json::value(nullptr) : json::value(it->second);
  };
  json::array users;
  for (const auto& u : r.users) users.emplace_back(u);
  return {{"name", r.state.name},
          {"id", r.state.id},
          {"engine", r.engine},
          {"environment", label("agentry.environment")},
          {"lifetime", label("agentry.lifetime")},
          {"runId", label("agentry.run")},
          {"groupId", label("agentry.group")},
          {"cleanup", label("agentry.cleanup")},
          {"workspace", label("agentry.workspace")},
          {"status", r.state.status},
          {"running", r.state.running},
          {"usedBy", std::move(users)}};
}

json::array strings(const std::vector<std::string>& items) {
  json::array out;
  for (const auto& s : items) out.emplace_back(s);
  return out;
}

}  // namespace

void add_container_operations(Operations& ops, ApiContext& ctx) {
  ops.add("environments.status", [&ctx](const OperationRequest& r) -> Result<OperationResult> {
    if (auto params = params_of(r, {}); !params) return params.failure();
    OperationResult result;
    result.blocking = [&ctx]() -> Result<OperationResult> {
      std::vector<std::string> errors;
      json::array containers;
      for (const auto& record : ctx.engine.containers().list(ctx.engine.container_engines(), errors))
        containers.push_back(record_json(record));
      return OperationResult{json::object{{"containers", std::move(containers)}, {"errors", strings(errors)}}};
    };
    return result;
  });
  ops.add("environments.cleanup", [&ctx](const OperationRequest& r) -> Result<OperationResult> {
    auto params = params_of(r, {"all"});
    if (!params) return params.failure();
    auto all = params->optional_bool("all");
    if (!all) return all.failure();
    OperationResult result;
    result.blocking = [&ctx, all = all->value_or(false), actor = r.actor]() -> Result<OperationResult> {
      std::vector<std::string> errors;
      json::array removed;
      for (const auto& record : ctx.engine.containers().cleanup(ctx.engine.container_engines(), all,
                                                                          ctx.engine.running_runs_and_groups(), errors)) {
        const auto run = record.state.labels.find("agentry.run");
        if (run != record.state.labels.end())
          ctx.engine.record_environment_actions(
              run->second,
              {{"environment.container_removed", {{"container", record.state.name}, {"why", "environments cleanup"}}}},
              actor);
        removed.push_back(record_json(record));
      }
      return OperationResult{json::object{{"removed", std::move(removed)}, {"errors", strings(errors)}}};
    };
    return result;
  });
}

}  // namespace agentry::api

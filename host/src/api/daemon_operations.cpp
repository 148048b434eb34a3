// Operations about the daemon itself: who it is and which backends it loaded.

#include "api/operations.hpp"
#include "plugin_host/plugin_registry.hpp"

namespace agentry::api {
namespace json = boost::json;
using core::Result;

namespace {

json::object backend_json(const plugin_host::LoadedBackend& b) {
  json::array features;
  for (const auto& f : b.descriptor.features) features.emplace_back(f);
  return {{"id", b.descriptor.id},
          {"name", b.descriptor.name},
          {"vendor", b.descriptor.vendor},
          {"version", b.descriptor.version},
          {"description", b.descriptor.description},
          {"features", std::move(features)},
          {"path", b.library->path().string()},
          {"abiVersion", b.library->abi_version()}};
}

}  // namespace

void add_daemon_operations(Operations& ops, ApiContext& ctx) {
  ops.add("daemon.info", [&ctx](const OperationRequest& r) -> Result<OperationResult> {
    if (auto params = params_of(r, {}); !params) return params.failure();
    const auto& d = ctx.daemon;
    return OperationResult{json::object{{"daemon", {{"daemonInstanceId", d.daemon_instance_id},
                                                    {"pid", d.pid},
                                                    {"listenUrl", d.listen_url},
                                                    {"version", d.version},
                                                    {"startedAt", d.started_at}}}}};
  });
  ops.add("backends.list", [&ctx](const OperationRequest& r) -> Result<OperationResult> {
    if (auto params = params_of(r, {}); !params) return params.failure();
    const auto& registry = ctx.engine.backends().registry();
    json::array backends;
    backends.push_back(json::object{{"id", "passive"},
                                    {"name", "Passive"},
                                    {"vendor", "agentry"},
                                    {"version", ctx.daemon.version},
                                    {"description", "Built in: no process; status follows the run's tasks"},
                                    {"features", json::array{}},
                                    {"path", nullptr},
                                    {"abiVersion", nullptr}});
    for (const auto& b : registry.backends()) backends.push_back(backend_json(b));
    json::array errors;
    for (const auto& e : registry.errors())
      errors.push_back(json::object{{"path", e.path}, {"message", e.message}, {"details", e.details}});
    return OperationResult{json::object{{"backends", std::move(backends)}, {"loadErrors", std::move(errors)}}};
  });
}

}  // namespace agentry::api

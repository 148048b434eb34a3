// Operations about the daemon itself: who it is, which backends it loaded, and the
// other daemons serving the same store.

#include "api/operations.hpp"
#include "core/clock.hpp"
#include "engine/engine.hpp"
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

json::object member_json(const engine::Member& m) {
  json::array labels;
  for (const auto& label : m.record.labels) labels.emplace_back(label);
  json::array roots;
  for (const auto& root : m.record.workspace_roots) roots.emplace_back(root);
  return {{"daemonId", m.record.id},
          {"name", m.record.name},
          {"host", m.record.host},
          {"pid", m.record.pid},
          {"advertiseUrl", m.record.advertise_url},
          {"labels", std::move(labels)},
          {"capacity", m.record.capacity > 0 ? json::value(m.record.capacity) : json::value(nullptr)},
          {"workspaceRoots", std::move(roots)},
          {"liveRuns", m.record.live_runs},
          {"version", m.record.version},
          {"startedAt", m.record.started_at},
          {"heartbeatAt", core::format_iso8601(m.record.heartbeat_ms)},
          {"heartbeatAgeMs", m.record.heartbeat_age_ms},
          {"state", to_string(m.state)},
          {"self", m.self}};
}

}  // namespace

void add_daemon_operations(Operations& ops, ApiContext& ctx) {
  ops.add("daemon.info", [&ctx](const OperationRequest& r) -> Result<OperationResult> {
    if (auto params = params_of(r, {}); !params) return params.failure();
    const auto& d = ctx.daemon;
    return OperationResult{json::object{{"daemon", {{"daemonInstanceId", d.daemon_instance_id},
                                                    {"pid", d.pid},
                                                    {"listenUrl", d.listen_url},
                                                    {"socketUrl", d.socket_url.empty()
                                                                      ? json::value(nullptr)
                                                                      : json::value(d.socket_url)},
                                                    {"version", d.version},
                                                    {"startedAt", d.started_at}}}}};
  });
  ops.add("daemons.list", [&ctx](const OperationRequest& r) -> Result<OperationResult> {
    if (auto params = params_of(r, {}); !params) return params.failure();
    auto members = ctx.engine.membership().list();
    if (!members) return members.failure();
    json::array out;
    for (const auto& m : *members) out.push_back(member_json(m));
    return OperationResult{json::object{{"daemons", std::move(out)}}};
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

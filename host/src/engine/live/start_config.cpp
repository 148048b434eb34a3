#include "engine/live/start_config.hpp"

#include "environments/launch.hpp"

#include <boost/json/value_from.hpp>

namespace agentry::engine {
namespace json = boost::json;

core::Result<json::object> backend_start_config(const core::Run& run, const environments::ContainerExec* container,
                                                const std::string& daemon_socket) {
  const auto& f = run.frozen;
  json::object config{{"backendConfig", f.backend_config}, {"model", f.model},
                      {"effort", f.effort},                {"timeoutSec", f.timeout_sec},
                      {"unrestricted", f.unrestricted},    {"extraArgs", json::value_from(f.extra_args)}};
  if (f.environment) {
    // Checked again here, not only when the run was created: a run frozen by another
    // version (or a kind not launchable yet) must fail, not run unconfined.
    if (auto ok = environments::check_launchable(*f.environment, f.backend, f.backend_config); !ok)
      return ok.failure();
    auto launcher = environments::wrap_launcher(*f.environment, f.launcher, run.cwd, container, daemon_socket);
    if (!launcher) return launcher.failure();
    config["launcher"] = std::move(*launcher);
    config["environment"] = json::object{
        {"name", f.environment->name}, {"kind", f.environment->kind}, {"network", f.environment->network}};
  } else if (f.launcher) {
    config["launcher"] = json::object{{"name", f.launcher->name},
                                      {"command", json::value_from(f.launcher->command)},
                                      {"env", f.launcher->env}};
  } else {
    config["launcher"] = nullptr;
  }
  return config;
}

}  // namespace agentry::engine

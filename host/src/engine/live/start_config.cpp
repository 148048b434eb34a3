#include "engine/live/start_config.hpp"

#include <boost/json/value_from.hpp>

namespace agentry::engine {
namespace json = boost::json;

json::object backend_start_config(const core::Run& run) {
  const auto& f = run.frozen;
  json::object config{{"backendConfig", f.backend_config}, {"model", f.model},
                      {"effort", f.effort},                {"timeoutSec", f.timeout_sec},
                      {"unrestricted", f.unrestricted},    {"extraArgs", json::value_from(f.extra_args)}};
  if (f.launcher)
    config["launcher"] = json::object{{"name", f.launcher->name},
                                      {"command", json::value_from(f.launcher->command)},
                                      {"env", f.launcher->env}};
  else
    config["launcher"] = nullptr;
  return config;
}

}  // namespace agentry::engine

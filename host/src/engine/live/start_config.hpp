#pragma once
// The config_json a backend gets for a run (plugin start params, and an ask's request):
// the run's frozen backendConfig, model, effort, timeout, flags and launcher. A run in an
// execution environment gets the environment's command in front of its launcher's
// (environments/launch.hpp), and `environment: {name, kind, network}`; an environment
// that cannot be applied is an error, never a launch on the host.

#include "core/result.hpp"
#include "core/run.hpp"
#include "environments/launch.hpp"

#include <boost/json/object.hpp>

namespace agentry::engine {

/// `container`: the attempt's way into its container (a run in a container environment);
/// `daemon_socket`: the daemon's, for a sandbox without a network to call back through.
core::Result<boost::json::object> backend_start_config(const core::Run& run,
                                                       const environments::ContainerExec* container = nullptr,
                                                       const std::string& daemon_socket = {});

}  // namespace agentry::engine

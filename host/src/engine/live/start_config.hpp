#pragma once
// The config_json a backend gets for a run (plugin start params, and an ask's request):
// the run's frozen backendConfig, model, effort, timeout, flags and launcher.

#include "core/run.hpp"

#include <boost/json/object.hpp>

namespace agentry::engine {

boost::json::object backend_start_config(const core::Run& run);

}  // namespace agentry::engine

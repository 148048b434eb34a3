#pragma once
// The one way what was done to a run's container (environments/container_manager.hpp)
// reaches the run's audit trail: a live run's steps, its release, a cleanup, a sweep.

#include "engine/requests.hpp"
#include "environments/container_manager.hpp"

#include <string>
#include <vector>

namespace agentry::store {
class Store;
}

namespace agentry::engine {

/// Appends each action as an audit record of `run_id`, in one write; nothing when the
/// run is gone (deleted since). A failed write is logged.
void append_environment_audits(store::Store& db, const std::string& run_id,
                               const std::vector<environments::ContainerAction>& actions, const Actor& actor);

}  // namespace agentry::engine

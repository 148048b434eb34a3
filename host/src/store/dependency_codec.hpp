#pragma once
// How the dependency repositories read what they store or look up, whatever the engine:
// the stored type of a dependency, and a run's status as dependency evaluation sees it.

#include "store/dependency_repository.hpp"

#include <string>
#include <string_view>

namespace agentry::store {

/// The table's CHECK admits only 'run' and 'group'.
core::Dependency decode_dependency(std::string_view type, std::string target, std::string created_at);
/// A status this agentry does not know (a newer one wrote it) reads as `error`, which is
/// never `success`: whoever waits on that run stays waiting.
RunPoint decode_run_point(std::string id, std::string_view status, bool archived, std::string group_id);

}  // namespace agentry::store

#include "engine/backend_catalog.hpp"

#include "core/run.hpp"
#include "plugin_host/plugin_registry.hpp"

namespace agentry::engine {

bool BackendCatalog::has(const std::string& name) const {
  return name == core::passive_backend || registry_.has(name);
}

std::vector<std::string> BackendCatalog::names() const {
  auto names = registry_.backend_ids();
  names.insert(names.begin(), std::string(core::passive_backend));
  return names;
}

}  // namespace agentry::engine

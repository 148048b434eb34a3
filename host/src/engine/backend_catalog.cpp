#include "engine/backend_catalog.hpp"

#include "core/run.hpp"

namespace agentry::engine {

bool BuiltinBackends::has(const std::string& name) const { return name == core::passive_backend; }

std::vector<std::string> BuiltinBackends::names() const { return {std::string(core::passive_backend)}; }

}  // namespace agentry::engine

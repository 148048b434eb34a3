#include "core/dependency.hpp"

namespace agentry::core {

std::string_view to_string(DependencyType type) { return type == DependencyType::group ? "group" : "run"; }

std::optional<DependencyType> parse_dependency_type(std::string_view text) {
  if (text == "run") return DependencyType::run;
  if (text == "group") return DependencyType::group;
  return std::nullopt;
}

std::string describe(const Dependency& d) { return std::string(to_string(d.type)) + ":" + d.target; }

}  // namespace agentry::core

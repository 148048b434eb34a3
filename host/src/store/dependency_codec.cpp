#include "store/dependency_codec.hpp"

namespace agentry::store {

core::Dependency decode_dependency(std::string_view type, std::string target, std::string created_at) {
  core::Dependency d;
  d.type = core::parse_dependency_type(type).value_or(core::DependencyType::run);
  d.target = std::move(target);
  d.created_at = std::move(created_at);
  return d;
}

RunPoint decode_run_point(std::string id, std::string_view status, bool archived, std::string group_id) {
  RunPoint p;
  p.id = std::move(id);
  p.status = core::parse_run_status(status).value_or(core::RunStatus::error);
  p.archived = archived;
  p.group_id = std::move(group_id);
  return p;
}

}  // namespace agentry::store

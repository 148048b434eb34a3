#include "pg_store/repositories.hpp"

// PLACEHOLDER: replaced by the port of sqlite_store/dependency_repository.cpp
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace agentry::pg_store {

void DependencyRepository::insert(const std::string& run_id, const core::Dependency& dependency) {
  throw PgError("DependencyRepository::insert is not ported yet", "");
}

bool DependencyRepository::remove(const std::string& run_id, core::DependencyType type, const std::string& target) {
  throw PgError("DependencyRepository::remove is not ported yet", "");
}

int DependencyRepository::remove_all(const std::string& run_id) {
  throw PgError("DependencyRepository::remove_all is not ported yet", "");
}

std::vector<core::Dependency> DependencyRepository::list(const std::string& run_id) {
  throw PgError("DependencyRepository::list is not ported yet", "");
}

std::map<std::string, std::vector<core::Dependency>> DependencyRepository::list_many(const std::vector<std::string>& run_ids) {
  throw PgError("DependencyRepository::list_many is not ported yet", "");
}

std::vector<DependencyEdge> DependencyRepository::naming(const std::string& run_id, const std::string& group_id) {
  throw PgError("DependencyRepository::naming is not ported yet", "");
}

std::vector<std::string> DependencyRepository::groups_left(const std::string& run_id) {
  throw PgError("DependencyRepository::groups_left is not ported yet", "");
}

std::vector<std::string> DependencyRepository::runs_with_dependencies() {
  throw PgError("DependencyRepository::runs_with_dependencies is not ported yet", "");
}

std::optional<RunPoint> DependencyRepository::point(const std::string& run_id) {
  throw PgError("DependencyRepository::point is not ported yet", "");
}

std::vector<RunPoint> DependencyRepository::group_members(const std::string& group_id) {
  throw PgError("DependencyRepository::group_members is not ported yet", "");
}

}  // namespace agentry::pg_store

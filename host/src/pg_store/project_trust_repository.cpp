#include "pg_store/repositories.hpp"

// PLACEHOLDER: replaced by the port of sqlite_store/project_trust_repository.cpp
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace agentry::pg_store {

std::optional<ProjectTrustRecord> ProjectTrustRepository::get(const std::string& project_dir) {
  throw PgError("ProjectTrustRepository::get is not ported yet", "");
}

void ProjectTrustRepository::put(const ProjectTrustRecord& record) {
  throw PgError("ProjectTrustRepository::put is not ported yet", "");
}

bool ProjectTrustRepository::remove(const std::string& project_dir) {
  throw PgError("ProjectTrustRepository::remove is not ported yet", "");
}

std::vector<ProjectTrustRecord> ProjectTrustRepository::list() {
  throw PgError("ProjectTrustRepository::list is not ported yet", "");
}

}  // namespace agentry::pg_store

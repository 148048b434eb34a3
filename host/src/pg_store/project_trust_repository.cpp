#include "pg_store/repositories.hpp"

namespace agentry::pg_store {
namespace {

ProjectTrustRecord record_at(const Row& row) { return {row[0].text(), row[1].text(), row[2].text(), row[3].text()}; }

}  // namespace

std::optional<ProjectTrustRecord> ProjectTrustRepository::get(const std::string& project_dir) {
  auto result = c_.query("SELECT project_dir, digest, trusted_at, trusted_by FROM project_trust WHERE project_dir = $1",
                         {project_dir});
  if (result.rows() == 0) return std::nullopt;
  return record_at(result.row(0));
}

void ProjectTrustRepository::put(const ProjectTrustRecord& record) {
  c_.query("INSERT INTO project_trust (project_dir, digest, trusted_at, trusted_by) VALUES ($1,$2,$3,$4) "
           "ON CONFLICT (project_dir) DO UPDATE SET digest = excluded.digest, trusted_at = excluded.trusted_at, "
           "trusted_by = excluded.trusted_by",
           {record.project_dir, record.digest, record.trusted_at, record.trusted_by});
}

bool ProjectTrustRepository::remove(const std::string& project_dir) {
  return c_.query("DELETE FROM project_trust WHERE project_dir = $1", {project_dir}).affected_rows() > 0;
}

std::vector<ProjectTrustRecord> ProjectTrustRepository::list() {
  auto result = c_.query("SELECT project_dir, digest, trusted_at, trusted_by FROM project_trust ORDER BY project_dir");
  std::vector<ProjectTrustRecord> out;
  for (int i = 0; i < result.rows(); ++i) out.push_back(record_at(result.row(i)));
  return out;
}

}  // namespace agentry::pg_store

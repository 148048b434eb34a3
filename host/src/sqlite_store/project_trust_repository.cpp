#include "sqlite_store/repositories.hpp"
namespace agentry::sqlite_store {
namespace {

ProjectTrustRecord record_at(Statement& s) {
  return {s.column_text(0), s.column_text(1), s.column_text(2), s.column_text(3)};
}

}  // namespace

std::optional<ProjectTrustRecord> ProjectTrustRepository::get(const std::string& project_dir) {
  auto s = c_.prepare("SELECT project_dir, digest, trusted_at, trusted_by FROM project_trust WHERE project_dir = ?");
  s.bind(1, project_dir);
  if (!s.step()) return std::nullopt;
  return record_at(s);
}

void ProjectTrustRepository::put(const ProjectTrustRecord& record) {
  auto s = c_.prepare(
      "INSERT INTO project_trust (project_dir, digest, trusted_at, trusted_by) VALUES (?, ?, ?, ?) "
      "ON CONFLICT (project_dir) DO UPDATE SET digest = excluded.digest, trusted_at = excluded.trusted_at, "
      "trusted_by = excluded.trusted_by");
  s.bind(1, record.project_dir).bind(2, record.digest).bind(3, record.trusted_at).bind(4, record.trusted_by);
  s.run();
}

bool ProjectTrustRepository::remove(const std::string& project_dir) {
  auto s = c_.prepare("DELETE FROM project_trust WHERE project_dir = ?");
  s.bind(1, project_dir);
  s.run();
  return c_.changes() > 0;
}

std::vector<ProjectTrustRecord> ProjectTrustRepository::list() {
  auto s = c_.prepare("SELECT project_dir, digest, trusted_at, trusted_by FROM project_trust ORDER BY project_dir");
  std::vector<ProjectTrustRecord> out;
  while (s.step()) out.push_back(record_at(s));
  return out;
}

}  // namespace agentry::sqlite_store

#pragma once
// Which projects' `.agentry/` directories the user trusts, and as of which digest of
// their files (engine/project_trust.hpp decides what the records mean).

#include "store/sqlite.hpp"

#include <optional>
#include <string>
#include <vector>

namespace agentry::store {

struct ProjectTrustRecord {
  std::string project_dir;  // absolute, canonical
  std::string digest;       // definitions::project_digest() when trusted
  std::string trusted_at;
  std::string trusted_by;
};

class ProjectTrustRepository {
 public:
  static std::optional<ProjectTrustRecord> get(Connection& c, const std::string& project_dir);
  /// Inserts or replaces the record of `record.project_dir`.
  static void put(Connection& c, const ProjectTrustRecord& record);
  /// Whether there was a record to remove.
  static bool remove(Connection& c, const std::string& project_dir);
  /// Every record, by directory.
  static std::vector<ProjectTrustRecord> list(Connection& c);
};

}  // namespace agentry::store

#pragma once
// Which projects' `.agentry/` directories the user trusts, and as of which digest of
// their files (engine/project_trust.hpp decides what the records mean).


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
  virtual ~ProjectTrustRepository() = default;

  virtual std::optional<ProjectTrustRecord> get(const std::string& project_dir) = 0;
  /// Inserts or replaces the record of `record.project_dir`.
  virtual void put(const ProjectTrustRecord& record) = 0;
  /// Whether there was a record to remove.
  virtual bool remove(const std::string& project_dir) = 0;
  /// Every record, by directory.
  virtual std::vector<ProjectTrustRecord> list() = 0;
};

}  // namespace agentry::store

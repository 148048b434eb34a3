#pragma once
// Project trust: which projects' `.agentry/` definitions the user has reviewed and
// trusts (`agentry trust [dir]`), recorded with a digest of every file there. A project
// is trusted while its files still have the digest it was trusted with; an edit, an
// added file or a removed one makes it untrusted again until the user trusts it anew.
// Untrusted, its definitions are read under definitions/project_trust.hpp's rules.
//
// The engine asks here for the definition roots of every request that names a project
// (a run's definitionCwd, a listing's cwd), so trust is decided in one place.

#include "core/result.hpp"
#include "definitions/roots.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace agentry::store {
class Store;
}  // namespace agentry::store

namespace agentry::engine {

struct ProjectTrustStatus {
  std::string project_dir;           // the directory that holds .agentry/
  bool trusted = false;              // trusted, and its files are as they were then
  bool changed = false;              // trusted once, but its files changed since
  std::string digest;                // of the files now; empty when they cannot be read
  std::optional<std::string> trusted_at;
  std::optional<std::string> trusted_by;
  std::optional<std::string> trusted_digest;
  std::string problem;               // why the files cannot be digested, if so
};

boost::json::object to_json(const ProjectTrustStatus& status);

class ProjectTrust {
 public:
  /// `env_allow`: the variables an untrusted project's files may read
  /// (AGENTRY_PROJECT_ENV_ALLOW).
  ProjectTrust(store::Store& db, std::filesystem::path config_dir, std::vector<std::string> env_allow);

  /// The roots for definitions named from `cwd`: the config directory and the project
  /// found at or above `cwd` (if any), with its trust decided now.
  definitions::Roots roots_for(const std::optional<std::filesystem::path>& cwd) const;

  /// The project at or above `dir` and whether it is trusted. NOT_FOUND when there is no
  /// `.agentry/` there or above; INVALID_REQUEST for a relative path.
  core::Result<ProjectTrustStatus> status(const std::filesystem::path& dir) const;
  /// Trusts the project at or above `dir` as its files are now.
  core::Result<ProjectTrustStatus> trust(const std::filesystem::path& dir, const std::string& actor);
  /// Forgets the trust of the project at or above `dir` (or of `dir` itself when its
  /// `.agentry/` is gone). NOT_FOUND when it was not trusted.
  core::Result<ProjectTrustStatus> revoke(const std::filesystem::path& dir, const std::string& actor);
  /// Every trusted project, each with whether its files still match.
  core::Result<std::vector<ProjectTrustStatus>> list() const;

 private:
  core::Result<std::filesystem::path> project_of(const std::filesystem::path& dir) const;
  ProjectTrustStatus evaluate(const std::filesystem::path& project_dir, bool always_digest) const;

  store::Store& db_;
  std::filesystem::path config_dir_;
  std::vector<std::string> env_allow_;
};

}  // namespace agentry::engine

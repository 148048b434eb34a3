#include "engine/project_trust.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "definitions/project_trust.hpp"
#include "store/project_trust_repository.hpp"
#include "store/store.hpp"

namespace agentry::engine {
namespace fs = std::filesystem;
namespace defs = definitions;

namespace {

/// One spelling per directory, so a record made through a symlink or with a trailing
/// slash is found again.
fs::path canonical_dir(const fs::path& dir) {
  std::error_code ec;
  fs::path out = fs::weakly_canonical(dir, ec);
  if (ec) out = dir.lexically_normal();
  if (!out.has_filename() && out.has_parent_path() && out != out.root_path()) out = out.parent_path();
  return out;
}

}  // namespace

boost::json::object to_json(const ProjectTrustStatus& s) {
  boost::json::object out{{"projectDir", s.project_dir}, {"trusted", s.trusted}, {"changed", s.changed},
                          {"digest", s.digest}};
  out["trustedAt"] = s.trusted_at ? boost::json::value(*s.trusted_at) : nullptr;
  out["trustedBy"] = s.trusted_by ? boost::json::value(*s.trusted_by) : nullptr;
  out["trustedDigest"] = s.trusted_digest ? boost::json::value(*s.trusted_digest) : nullptr;
  if (!s.problem.empty()) out["problem"] = s.problem;
  return out;
}

ProjectTrust::ProjectTrust(store::Store& db, fs::path config_dir, std::vector<std::string> env_allow)
    : db_(db), config_dir_(std::move(config_dir)), env_allow_(std::move(env_allow)) {}

ProjectTrustStatus ProjectTrust::evaluate(const fs::path& project_dir, bool always_digest) const {
  ProjectTrustStatus out;
  out.project_dir = project_dir.string();
  auto record = db_.read([&](store::Transaction& c) -> core::Result<std::optional<store::ProjectTrustRecord>> {
    return c.project_trust().get(out.project_dir);
  });
  if (!record) core::log_error("cannot read project trust", {{"projectDir", out.project_dir}, {"error", record.error().message}});
  const bool has_record = record && *record;
  // Reading every file is needed only to compare with a record, or to show the digest.
  if (has_record || always_digest) {
    auto digest = defs::project_digest(project_dir);
    if (digest) out.digest = *digest;
    else out.problem = digest.error().message;
  }
  if (has_record) {
    out.trusted_at = (*record)->trusted_at;
    out.trusted_by = (*record)->trusted_by;
    out.trusted_digest = (*record)->digest;
    out.trusted = !out.digest.empty() && out.digest == (*record)->digest;
    out.changed = !out.trusted;
  }
  return out;
}

defs::Roots ProjectTrust::roots_for(const std::optional<fs::path>& cwd) const {
  defs::Roots roots;
  roots.config_dir = config_dir_;
  roots.project_env_allow = env_allow_;
  if (!cwd) return roots;
  roots.project_dir = defs::find_project_dir(canonical_dir(*cwd));
  // The project's own config directory is the user's: nothing to trust there.
  if (roots.project_dir && !config_dir_.empty() &&
      canonical_dir(*roots.project_dir / ".agentry") == canonical_dir(config_dir_))
    roots.project_dir.reset();
  if (roots.project_dir) roots.project_trusted = evaluate(*roots.project_dir, false).trusted;
  return roots;
}

core::Result<fs::path> ProjectTrust::project_of(const fs::path& dir) const {
  if (dir.empty() || dir.is_relative())
    return core::fail(core::ErrorCode::invalid_request, "the project directory must be an absolute path",
                      {{"field", "dir"}});
  auto project = defs::find_project_dir(canonical_dir(dir));
  if (!project)
    return core::fail(core::ErrorCode::not_found,
                      "no .agentry/ directory in " + dir.string() + " or above it: there is nothing to trust",
                      {{"dir", dir.string()}});
  return *project;
}

core::Result<ProjectTrustStatus> ProjectTrust::status(const fs::path& dir) const {
  auto project = project_of(dir);
  if (!project) return project.failure();
  return evaluate(*project, true);
}

core::Result<ProjectTrustStatus> ProjectTrust::trust(const fs::path& dir, const std::string& actor) {
  auto project = project_of(dir);
  if (!project) return project.failure();
  auto digest = defs::project_digest(*project);
  if (!digest) return digest.failure();
  store::ProjectTrustRecord record{project->string(), *digest, core::now_iso8601(), actor};
  auto written = db_.write<bool>([&](store::Transaction& c) -> core::Result<bool> {
    c.project_trust().put(record);
    return true;
  });
  if (!written) return written.failure();
  core::log_info("project trusted", {{"projectDir", record.project_dir}, {"digest", record.digest}, {"by", actor}});
  return evaluate(*project, true);
}

core::Result<ProjectTrustStatus> ProjectTrust::revoke(const fs::path& dir, const std::string& actor) {
  if (dir.empty() || dir.is_relative())
    return core::fail(core::ErrorCode::invalid_request, "the project directory must be an absolute path",
                      {{"field", "dir"}});
  // A project whose .agentry/ is gone can still be forgotten by its own directory.
  auto found = defs::find_project_dir(canonical_dir(dir));
  const fs::path project = found ? *found : canonical_dir(dir);
  auto removed = db_.write<bool>([&](store::Transaction& c) -> core::Result<bool> {
    return c.project_trust().remove(project.string());
  });
  if (!removed) return removed.failure();
  if (!*removed)
    return core::fail(core::ErrorCode::not_found, "the project " + project.string() + " is not trusted",
                      {{"projectDir", project.string()}});
  core::log_info("project trust revoked", {{"projectDir", project.string()}, {"by", actor}});
  return evaluate(project, true);
}

core::Result<std::vector<ProjectTrustStatus>> ProjectTrust::list() const {
  auto records = db_.read([](store::Transaction& c) -> core::Result<std::vector<store::ProjectTrustRecord>> {
    return c.project_trust().list();
  });
  if (!records) return records.failure();
  std::vector<ProjectTrustStatus> out;
  for (const auto& r : *records) out.push_back(evaluate(r.project_dir, true));
  return out;
}

}  // namespace agentry::engine

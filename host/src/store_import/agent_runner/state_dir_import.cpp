#include "store_import/agent_runner/state_dir_import.hpp"

#include "store_import/agent_runner/events_reader.hpp"
#include "store_import/agent_runner/import_writer.hpp"
#include "store_import/agent_runner/manifest_reader.hpp"
#include "store_import/agent_runner/run_mapping.hpp"

#include "core/json_strings.hpp"

#include <algorithm>
#include <map>

namespace agentry::store_import::agent_runner {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> sorted_dirs(const fs::path& parent) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string field_of(const core::Error& e) {
  const auto* f = e.details.if_contains("field");
  return f && f->is_string() ? std::string(f->as_string()) : std::string();
}

ImportProblem problem(const std::string& run_id, const core::Error& e) {
  const bool refused = e.code != core::ErrorCode::internal && e.code != core::ErrorCode::unavailable;
  return {run_id, field_of(e), e.message, !refused};
}

// What the reader needs besides the manifest: the audit file, the attempt logs' stderr,
// and which files exist that are not carried.
core::Result<RunSources> gather(const fs::path& run_dir, Manifest manifest) {
  RunSources s;
  s.run_dir = run_dir;
  auto audit = read_run_events(run_dir / "run-events.jsonl", manifest.run_id);
  if (!audit) return audit.failure();
  s.audit = std::move(*audit);
  for (std::size_t i = 0; i < manifest.attempts.size(); ++i) {
    const fs::path log(manifest.attempts[i].log_path);
    const auto bad = log.is_absolute() || std::any_of(log.begin(), log.end(), [](const fs::path& p) { return p == ".."; });
    if (bad) {
      const std::string field = "attemptRecords[" + std::to_string(i) + "].logPath";
      return core::fail(core::ErrorCode::validation, manifest.file.string() + ": " + field + " must stay inside the run's directory",
                        {{"file", manifest.file.string()}, {"field", field}});
    }
    auto stderr_text = read_attempt_stderr(run_dir / log);
    if (!stderr_text) return stderr_text.failure();
    if (*stderr_text) s.stderr_by_attempt[manifest.attempts[i].number] = std::move(**stderr_text);
  }
  std::error_code ec;
  for (fs::directory_iterator it(run_dir / "attempts", ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().ends_with(".stdout.log")) s.has_stdout_logs = true;
  for (const char* seed : {"agent-seed.md", "assignment-seed.md", "environment-seed.yaml"})
    if (fs::exists(run_dir / seed, ec)) s.seed_files.emplace_back(seed);
  s.manifest = std::move(manifest);
  return s;
}

ImportedRunReport report_of(const std::string& bucket, const ImportedRun& run) {
  ImportedRunReport r;
  r.run_id = run.run.id;
  r.repo = bucket;
  r.status = std::string(core::to_string(run.run.status));
  r.status_there = run.status_there;
  r.not_carried = run.not_carried;
  r.hooks_left_out = run.hooks_left_out;
  r.tasks = run.tasks.size();
  r.sessions = run.sessions.size();
  r.attempts = run.attempts.size();
  r.audit_events = run.audit.size();
  r.attachments = run.attachments.size();
  return r;
}

// Run ids met in this pass and where: agent-runner keys runs by id alone, so one id in two
// buckets is a copy, and only the first is imported (a dry run must say so too).
using SeenRuns = std::map<std::string, fs::path>;

void import_one(store::Store& store, const ImportOptions& o, const std::string& bucket, const fs::path& run_dir,
                SeenRuns& seen, ImportReport& report) {
  const std::string dir_id = run_dir.filename().string();
  const fs::path file = run_dir / "run.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    report.skipped.push_back({dir_id, run_dir.string() + " holds no run.json"});
    return;
  }
  auto manifest = read_manifest(file);
  if (!manifest) return report.problems.push_back(problem(dir_id, manifest.error()));
  if (!manifest->supported()) {
    report.skipped.push_back({manifest->run_id, file.string() + " has schemaVersion " +
                                                    std::to_string(manifest->schema_version) +
                                                    "; only " + std::to_string(supported_manifest_version) +
                                                    " is imported (agent-runner itself no longer reads older ones)"});
    return;
  }
  if (manifest->run_id != dir_id) {
    report.problems.push_back({manifest->run_id, "runId",
                               file.string() + ": runId " + manifest->run_id + " is not its directory's name (" + dir_id + ")"});
    return;
  }
  const std::string run_id = manifest->run_id;
  if (auto [first, inserted] = seen.emplace(run_id, run_dir); !inserted) {
    report.problems.push_back({run_id, "runId",
                               file.string() + ": run " + run_id + " is also under " + first->second.string() +
                                   ", imported first in this pass; this copy is left out"});
    return;
  }
  auto sources = gather(run_dir, std::move(*manifest));
  if (!sources) return report.problems.push_back(problem(run_id, sources.error()));
  auto mapped = map_run(*sources, o.now_ms);
  if (!mapped) return report.problems.push_back(problem(run_id, mapped.error()));
  auto written = write_imported_run(store, o.blob_dir, *mapped, o.dry_run);
  if (!written) return report.problems.push_back(problem(run_id, written.error()));
  if (*written == WriteOutcome::already_imported)
    report.skipped.push_back({run_id, "already imported from " + file.string()});
  else
    report.imported.push_back(report_of(bucket, *mapped));
}

}  // namespace

bool ImportReport::store_failed() const {
  return std::any_of(problems.begin(), problems.end(), [](const auto& p) { return p.store_failure; });
}

json::object ImportReport::to_json() const {
  json::array runs;
  for (const auto& r : imported) {
    json::object o{{"runId", r.run_id},
                   {"repo", r.repo},
                   {"status", r.status},
                   {"tasks", r.tasks},
                   {"sessions", r.sessions},
                   {"attempts", r.attempts},
                   {"auditEvents", r.audit_events},
                   {"attachments", r.attachments},
                   {"notCarried", core::to_json_strings(r.not_carried)},
                   {"hooksNotImported", core::to_json_strings(r.hooks_left_out)}};
    if (!r.status_there.empty()) o["statusThere"] = r.status_there;
    runs.push_back(std::move(o));
  }
  json::array skips;
  for (const auto& s : skipped) skips.push_back(json::object{{"runId", s.run_id}, {"reason", s.reason}});
  json::array issues;
  for (const auto& p : problems) issues.push_back(json::object{{"runId", p.run_id}, {"field", p.field}, {"reason", p.reason}});
  return {{"dryRun", dry_run}, {"imported", std::move(runs)}, {"skipped", std::move(skips)}, {"problems", std::move(issues)}};
}

core::Result<ImportReport> import_state_dir(store::Store& store, const ImportOptions& o) {
  const fs::path runs = o.state_dir / "runs";
  std::error_code ec;
  if (!fs::is_directory(runs, ec))
    return core::fail(core::ErrorCode::not_found,
                      o.state_dir.string() + " holds no runs/ directory: name agent-runner's state directory "
                      "(AGENT_RUNNER_STATE_DIR, by default ~/.local/state/agent-runner)",
                      {{"field", "stateDir"}});
  ImportReport report;
  report.dry_run = o.dry_run;
  SeenRuns seen;
  for (const auto& bucket : sorted_dirs(runs))
    for (const auto& run_dir : sorted_dirs(bucket)) import_one(store, o, bucket.filename().string(), run_dir, seen, report);
  return report;
}

}  // namespace agentry::store_import::agent_runner

#pragma once
// `agentry import agent-runner <state dir>`: every run under <state dir>/runs/<repo
// bucket>/<run id>/ read, mapped and written one by one (import_writer.hpp), with a
// report of what was imported, what was skipped and why each refused run was refused.

#include "core/result.hpp"
#include "store/store.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace agentry::store_import::agent_runner {

struct ImportOptions {
  std::filesystem::path state_dir;  // AGENT_RUNNER_STATE_DIR (holding runs/)
  std::filesystem::path blob_dir;   // where agentry keeps attachment contents
  bool dry_run = false;
  std::int64_t now_ms = 0;
};

struct ImportedRunReport {
  std::string run_id;
  std::string repo;    // agent-runner's bucket
  std::string status;  // as imported
  std::string status_there;  // when it differs (a running run, imported as error)
  std::vector<std::string> not_carried;
  std::vector<std::string> hooks_left_out;
  std::size_t tasks = 0, sessions = 0, attempts = 0, audit_events = 0, attachments = 0;
};

struct SkippedRun {
  std::string run_id;
  std::string reason;
};

struct ImportProblem {
  std::string run_id;
  std::string field;   // the manifest's field, or "" for the whole run
  std::string reason;  // the whole message, naming the file
  bool store_failure = false;  // the store failed (exit 4), rather than the run being refused (exit 3)
};

struct ImportReport {
  bool dry_run = false;
  std::vector<ImportedRunReport> imported;
  std::vector<SkippedRun> skipped;
  std::vector<ImportProblem> problems;

  bool store_failed() const;
  boost::json::object to_json() const;
};

/// NOT_FOUND when `options.state_dir` holds no runs/ directory; anything wrong with one
/// run goes into the report, and the others are still imported.
core::Result<ImportReport> import_state_dir(store::Store& store, const ImportOptions& options);

}  // namespace agentry::store_import::agent_runner

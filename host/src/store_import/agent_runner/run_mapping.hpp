#pragma once
// agent-runner's run (its manifest, audit records and attempt logs) mapped into one
// ImportedRun: translation and checking; it reads the attachments' files to check them,
// and touches neither the store nor the blobs. What does
// not fit agentry's values (an unknown status, an id agentry cannot hold, a schedule it
// cannot parse) refuses the run, naming the field.

#include "core/result.hpp"
#include "store_import/agent_runner/events_reader.hpp"
#include "store_import/agent_runner/imported_run.hpp"
#include "store_import/agent_runner/manifest_reader.hpp"

#include <filesystem>
#include <map>
#include <string>

namespace agentry::store_import::agent_runner {

struct RunSources {
  std::filesystem::path run_dir;
  Manifest manifest;
  std::vector<AuditRecord> audit;
  /// attemptNumber -> the stderr its log kept (attempts without a log are absent).
  std::map<int, std::string> stderr_by_attempt;
  /// Whether attempts/*.stdout.log files exist (they are not carried).
  bool has_stdout_logs = false;
  /// Which seed files exist (not carried: the frozen inputs hold what a run needs).
  std::vector<std::string> seed_files;
};

/// The reason a run that was running there is imported as an error (M12).
inline constexpr const char* imported_while_running = "imported from agent-runner while running";

/// Maps `sources` (a supported manifest) into an ImportedRun; `now_ms` is the import's
/// clock, for schedules. VALIDATION naming the manifest and field when something does
/// not fit.
core::Result<ImportedRun> map_run(const RunSources& sources, std::int64_t now_ms);

}  // namespace agentry::store_import::agent_runner

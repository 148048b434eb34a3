#pragma once
// The history half of mapping a run (run_mapping.hpp): its sessions and attempts with a
// timeline rebuilt per attempt (agent-runner keeps no timeline events, only attempt
// records), and its audit records in cursor order followed by our run.imported.
// Refusals throw FieldError naming the manifest's field.

#include "store_import/agent_runner/imported_run.hpp"
#include "store_import/agent_runner/run_mapping.hpp"

#include <string>

namespace agentry::store_import::agent_runner {

/// Fills out.sessions, out.attempts, out.timeline and the run's session and attempt
/// counts. A session still open on a run imported as an error is closed with it (M12).
void map_history(const RunSources& sources, ImportedRun& out);
/// Fills out.audit: theirs (type kept, their fields as data, actor from their source,
/// importedFrom), then run.imported at `now` with the provenance and what was left out.
void map_audit(const RunSources& sources, ImportedRun& out, const std::string& now);

}  // namespace agentry::store_import::agent_runner

#pragma once
// agent-runner's audit file (`run-events.jsonl`, schemaVersion 2): one JSON record per
// line with shared keys (recordedAt, cursor, runId, eventType, source, hostMode, ...) and
// the event's own fields beside them. Read whole, in cursor order; a line that is not such
// a record refuses the file, naming its line and field.

#include "core/result.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace agentry::store_import::agent_runner {

struct AuditRecord {
  std::int64_t cursor = 0;
  std::string recorded_at;
  std::string event_type;
  std::string source;  // system | cli | daemon | task_command
  std::string host_mode;
  std::optional<std::string> controller_instance_id;
  std::optional<std::int64_t> session_index;
  std::optional<std::int64_t> attempt_number;
  boost::json::object fields;  // the event's own fields: every key not shared
};

/// The records of `run_id` in `file`, sorted by cursor. A missing file has none. Records
/// of another run are left out, as agent-runner's own reader does. VALIDATION naming the
/// file, line and field for a malformed line or a repeated cursor.
core::Result<std::vector<AuditRecord>> read_run_events(const std::filesystem::path& file, const std::string& run_id);
core::Result<std::vector<AuditRecord>> parse_run_events(const std::string& text, const std::filesystem::path& file,
                                                         const std::string& run_id);

/// The stderr an attempt's log (`attempts/NN.json`, schemaVersion 3) kept; nullopt when
/// the file does not exist. VALIDATION naming the file and field when it is malformed.
core::Result<std::optional<std::string>> read_attempt_stderr(const std::filesystem::path& file);

}  // namespace agentry::store_import::agent_runner

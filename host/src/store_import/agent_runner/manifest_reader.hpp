#pragma once
// agent-runner's run manifest (`run.json`, schemaVersion 25), read into plain values for
// the importer: only what agentry carries over, each field checked for its type, plus the
// raw JSON of what it reports but does not carry (hooks, sync state, containers). An
// older or newer schemaVersion is read no further: the importer reports it and skips it.

#include "core/result.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace agentry::store_import::agent_runner {

inline constexpr std::int64_t supported_manifest_version = 25;

struct ManifestTask {
  std::string id;
  std::string title;
  std::string body;
  std::string status;
  std::string notes;
};

struct ManifestAttachment {
  std::string id;
  std::string name;
  std::string mime_type;
  std::uint64_t size = 0;
  std::string sha256;
  std::string added_at;
  std::string relative_path;  // inside the run's directory
};

struct ManifestSession {
  int index = 0;
  std::string started_at;
  std::optional<std::string> ended_at;
  std::string status;
  std::optional<std::string> message;
  std::optional<std::string> backend_session_id_at_end;
  std::optional<boost::json::object> resume_source;  // {kind, childRunId, notificationId}: a child's completion opened it
};

struct ManifestAttempt {
  int number = 0;
  int session_index = 0;
  int index_in_session = 0;
  std::string started_at;
  std::string ended_at;
  std::string prompt;
  std::optional<std::int64_t> exit_code;
  std::optional<std::string> signal;
  bool timed_out = false;
  std::optional<std::string> transcript;
  std::string log_path;  // relative to the run's directory, "attempts/01.json"
};

struct ManifestRecurrence {
  std::string cron;
  std::string timezone;
  std::string mode;  // reuse | reset | clone
  bool continue_on_failure = false;
};

struct ManifestSchedule {
  bool enabled = true;
  std::string run_at;
  std::optional<ManifestRecurrence> recurrence;
};

struct ManifestDependency {
  std::string type;  // "run" | "group"
  std::string target;
};

struct ManifestQueuedMessage {
  std::string id;
  std::string text;
  std::string created_at;
  std::optional<boost::json::object> source;  // {kind, childRunId, notificationId}
};

struct ManifestParentNotification {
  std::string id;
  std::string parent_run_id;
  int session_index = 0;
  std::string status;  // pending | delivered_queued | delivered_resumed | failed | skipped
  std::string created_at;
  std::optional<std::string> delivered_at;
  std::optional<std::string> delivery_reason;
  std::optional<std::string> failure_reason;
};

struct ManifestLauncher {
  std::string kind;  // "direct" | "prefix"
  std::optional<std::string> name;
  std::string command;
  std::vector<std::string> args;
};

struct Manifest {
  std::filesystem::path file;
  std::int64_t schema_version = 0;
  std::string run_id;
  // Everything below is read only for the supported version.
  std::string repo;
  std::string agent_name;
  std::optional<std::string> agent_source_path;
  std::string agent_instructions;
  std::optional<std::string> assignment_name;
  std::optional<std::string> assignment_source_path;
  std::string backend;
  std::optional<std::string> model;
  std::optional<std::string> effort;
  boost::json::value backend_config;  // null when absent
  std::vector<std::string> resolved_backend_args;
  ManifestLauncher launcher;
  std::optional<std::string> message;
  std::optional<std::string> name;
  std::optional<std::string> note;
  bool pinned = false;
  bool unrestricted = false;
  std::string cwd;
  std::vector<std::string> locked_fields;
  std::int64_t timeout_sec = 0;
  std::string started_at;
  std::string updated_at;
  std::optional<std::string> ended_at;
  std::optional<std::string> archived_at;
  std::string status;
  std::string run_group_id;
  std::vector<ManifestDependency> dependencies;
  std::optional<std::string> parent_run_id;
  std::optional<ManifestSchedule> schedule;
  std::vector<ManifestQueuedMessage> queued_messages;
  std::vector<ManifestParentNotification> parent_notifications;
  std::int64_t max_attempts_per_session = 1;
  std::optional<std::string> backend_session_id;
  boost::json::object runtime_vars;
  boost::json::object runtime_var_sources;
  std::string brief;
  std::optional<std::string> caller_instructions;
  boost::json::array resolved_hooks;
  boost::json::object hook_state;
  boost::json::array hook_audits;
  bool has_backend_session_sync = false;
  bool has_execution_environment = false;
  boost::json::object reset_seed;
  std::vector<ManifestAttachment> attachments;
  std::vector<ManifestTask> final_tasks;  // in the object's key order
  std::vector<ManifestSession> sessions;
  std::vector<ManifestAttempt> attempts;

  bool supported() const { return schema_version == supported_manifest_version; }
};

/// Reads `file`. VALIDATION when it is not JSON or a field has the wrong type or is
/// missing, with details {file, field}; NOT_FOUND when it cannot be read. A manifest of
/// another schemaVersion comes back with only schema_version and run_id read.
core::Result<Manifest> read_manifest(const std::filesystem::path& file);
/// The same from text already read (tests, and the file's own read).
core::Result<Manifest> parse_manifest(const std::string& text, const std::filesystem::path& file);

}  // namespace agentry::store_import::agent_runner

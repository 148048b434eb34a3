#pragma once
// One agent-runner run as agentry will hold it: every row the importer writes for it in
// its one transaction, and what it left behind (reported per run, never silently).

#include "core/attachment.hpp"
#include "core/dependency.hpp"
#include "core/run.hpp"
#include "core/schedule.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace agentry::store_import::agent_runner {

struct ImportedAttachment {
  core::Attachment row;
  std::filesystem::path file;  // its bytes in the state directory, already checked
};

struct ImportedRun {
  core::Run run;
  std::vector<core::Task> tasks;
  std::vector<core::Session> sessions;
  std::vector<core::Attempt> attempts;
  std::vector<core::TimelineEvent> timeline;  // in order; cursors assigned on write
  std::vector<core::AuditEvent> audit;        // theirs in cursor order, then run.imported
  std::optional<core::Schedule> schedule;
  std::vector<core::Dependency> dependencies;
  std::vector<core::QueuedMessage> queued_messages;
  std::vector<core::ParentNotification> parent_notifications;
  std::string initial_snapshot_json;  // from their resetSeed
  std::vector<ImportedAttachment> attachments;
  /// The provenance written into run.imported: {system, manifest, updatedAt}.
  boost::json::object imported_from;
  /// What the run had that agentry does not carry (M14), and its hooks (M11).
  std::vector<std::string> not_carried;
  std::vector<std::string> hooks_left_out;  // "phase:hookId (why)"
  /// Their `hookState` and `hookAudits` (hook_mapping.hpp).
  boost::json::object hook_data;
  std::vector<core::HookAudit> hook_audits;
  /// The status it had there, when it differs from the one imported (a running run).
  std::string status_there;
};

}  // namespace agentry::store_import::agent_runner

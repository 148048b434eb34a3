#pragma once
// agent-runner's mutation results (docs/design/agent-runner-compat.md §2.4, rows A1-A4)
// and DaemonInfo, from the run our native mutation answered. `changed` is the caller's
// to decide (the native revision grew, or the state already was the asked one), since
// the native answer alone cannot tell.

#include "api/compat/compat_facts.hpp"

#include <boost/json/object.hpp>

#include <string>

namespace agentry::api::compat {

/// RunArchiveResult `{runId, updatedAt, status, archivedAt, changed}`.
boost::json::object ref_archive_result(const boost::json::object& native_run, bool changed);
/// RunNameResult `{runId, updatedAt, name, changed}`.
boost::json::object ref_name_result(const boost::json::object& native_run, bool changed);
/// RunNoteResult `{runId, updatedAt, note, changed}` (needs a RunDetail: summaries carry no note).
boost::json::object ref_note_result(const boost::json::object& native_run, bool changed);
/// RunPinnedResult `{runId, updatedAt, pinned, changed}`.
boost::json::object ref_pinned_result(const boost::json::object& native_run, bool changed);
/// RunBackendSessionResult `{runId, updatedAt, backendSessionId, changed}`.
boost::json::object ref_backend_session_result(const boost::json::object& native_run, bool changed);
/// RunGroupResult `{runId, updatedAt, runGroupId, previousRunGroupId, changed}`.
boost::json::object ref_group_result(const boost::json::object& native_run, const std::string& previous_run_group_id,
                                     bool changed);
/// RunDependenciesResult `{runId, updatedAt, dependencies: [{type, runId|groupId}], changed}`.
boost::json::object ref_dependencies_result(const boost::json::object& native_run, bool changed);

/// QueueResumeMessageResult `{run, queuedResumeMessage}` from our runs.queueResumeMessage
/// answer `{message, run}`.
boost::json::object ref_queue_message_result(const boost::json::object& native_answer, const CompatFacts& facts);
/// RemoveQueuedResumeMessageResult `{run, removedMessageId}`: ours answers without the
/// run, so the caller reads it after the removal.
boost::json::object ref_remove_queued_message_result(const boost::json::object& native_detail,
                                                     const std::string& removed_message_id, const CompatFacts& facts);
/// `{runId, attachmentId, changed}` from our attachments.remove answer `{removed,
/// attachment}` (theirs: `changed` false when nothing was removed).
boost::json::object ref_attachment_remove_result(const boost::json::object& native_answer);

/// DaemonInfo `{daemonInstanceId, pid, listenUrl, version, startedAt}` from our
/// `daemon.info` answer (its `daemon` member, or the object itself); `listen_url` replaces
/// ours, since their clients must be told the compat listener's address.
boost::json::object ref_daemon_info(const boost::json::object& native_daemon, const std::string& listen_url);

}  // namespace agentry::api::compat

#pragma once
// Parent-completion notifications. A child run that has a parent and asked for it
// (FrozenInputs::notify_parent_on_complete) records, whenever one of its sessions is
// allocated, a pending notification for that session. When the session has ended, the
// daemon delivers it exactly once (Engine::deliver_parent_notifications): in one write
// it marks the row delivered and either queues one compact message on the parent (a
// running parent) or opens the parent's next session with it (an idle, resumable one:
// a managed resume, launched after the commit). Both carry the source metadata
// {kind: "child_completion", childRunId, childSessionIndex, childSessionStartedAt}; a queued message or a
// parent session already carrying it counts as the delivery (startup recovery).

#include "core/run.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace agentry::store {
class Transaction;
}  // namespace agentry::store

namespace agentry::engine::detail {

/// Reason codes of a skipped notification (RunDetail.parentNotification.reason).
inline constexpr const char* reason_session_not_current = "notification_session_not_current";
inline constexpr const char* reason_parent_not_found = "parent_not_found";
inline constexpr const char* reason_parent_archived = "parent_archived";
inline constexpr const char* reason_parent_not_started = "parent_not_started";
inline constexpr const char* reason_parent_not_resumable = "parent_not_resumable";
/// Audited, not a state: the startup sweep could not confirm the child session ended.
inline constexpr const char* reason_child_session_not_terminal = "child_session_not_terminal";

/// Inside the write that opens session `session_index` of `run`: when the run has a
/// parent and notifies it, records the pending notification (audit parent_notification.pending).
void record_parent_notification(store::Transaction& c, const core::Run& run, int session_index,
                                const std::string& at);

/// {kind: "child_completion", childRunId, childSessionIndex, childSessionStartedAt}: the
/// start time tells the session from one of the same index before the child was reset.
boost::json::object child_completion_source(const std::string& child_run_id, int session_index,
                                            const std::string& session_started_at);

/// Whether `source` names the same child session as `wanted` (a child_completion source).
bool same_child_completion(const boost::json::object& source, const boost::json::object& wanted);

/// The last transcript of a session: the assistant messages of its last attempt that
/// recorded any, oldest first (at most a few dozen).
std::vector<std::string> session_transcript(store::Transaction& c, const std::string& run_id, int session_index);

}  // namespace agentry::engine::detail

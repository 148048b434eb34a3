#pragma once
// The JSON shapes clients see: RunSummary (board cards, lists), RunDetail (the drawer),
// tasks, sessions, audit and timeline events. Documented in docs/api.md; every
// transport (HTTP, WebSocket, CLI --json) renders through these functions.

#include "core/lifecycle.hpp"
#include "core/run.hpp"
#include "core/task_tally.hpp"

#include <boost/json/object.hpp>
#include <boost/json/storage_ptr.hpp>

#include <optional>
#include <string>
#include <vector>

namespace agentry::events {

/// The functions that take a storage_ptr build their objects in it: a page of summaries
/// or a detail built in one monotonic resource costs a few allocations, not hundreds.
boost::json::object capabilities_json(const core::RunCapabilities& caps, boost::json::storage_ptr sp = {});
boost::json::object task_json(const core::Task& task);
boost::json::object session_json(const core::Session& session, const std::vector<core::Attempt>& attempts);
boost::json::object audit_event_json(const core::AuditEvent& event);
boost::json::object timeline_event_json(const core::TimelineEvent& event);
/// { approvalId, kind, summary, details, requestedAt }
boost::json::object pending_approval_json(const core::PendingApproval& approval);
/// { id, runId, text, createdAt, source }
boost::json::object queued_message_json(const core::QueuedMessage& message);
/// An attachment as lists and RunDetail show it (attachmentId, runId, name, size, ...).
boost::json::object attachment_json(const core::Attachment& attachment);

/// `latest_session` shows its attempt range (firstAttemptNumber, lastAttemptNumber,
/// attemptCount) from the Session's derived members: SessionRepository::latest fills them,
/// with_attempt_range computes them from a view's attempts.
boost::json::object run_summary(const core::Run& run, const core::TaskTally& tasks,
                                const std::optional<core::Session>& latest_session, boost::json::storage_ptr sp = {});
/// `session` with its attempt range counted over `attempts` (the run's, any order).
core::Session with_attempt_range(core::Session session, const std::vector<core::Attempt>& attempts);

struct RunDetailInputs {
  const core::Run& run;
  const std::vector<core::Task>& tasks;
  const std::vector<core::Session>& sessions;
  const std::vector<core::Attempt>& attempts;
};

boost::json::object run_detail(const RunDetailInputs& in, boost::json::storage_ptr sp = {});

/// The run's vars as clients see them: a value the run got from the environment (or
/// inherited from a parent that did) is replaced by { redacted: true, source, envName,
/// inheritedFromRunId? }, agent-runner's shape; the stored value is untouched.
boost::json::object displayed_vars(const core::FrozenInputs& frozen);

/// `text` with every redacted string value of the run's vars (8 characters or more)
/// replaced by "[redacted]": for texts rendered from templates, which carry the values.
std::string redact_text(const core::FrozenInputs& frozen, std::string text);

}  // namespace agentry::events

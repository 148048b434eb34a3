#pragma once
// Our RunSummary / RunDetail JSON (events/projections.hpp, what native operations answer)
// as agent-runner's RunSummary / RunDetail and their parts (docs/design/agent-runner-compat.md
// §2.4, rows W1-W29). Pure functions: no store, no clock but CompatFacts::now_ms.

#include "api/compat/compat_facts.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentry::api::compat {

/// Their RunStatus names are ours; anything else (a damaged row) reads as "error".
std::string ref_status(std::string_view native_status);

/// W17: success 0, exhausted 1, blocked 2, aborted 130, error 4, any other status null.
boost::json::value ref_exit_code(std::string_view status);

/// W4: the bucket agent-runner files a run under: the lower-cased basename of the
/// repository root (leading '-' dropped), or "unknown" without one.
std::string ref_repo_bucket(const boost::json::value& native_repo);

/// A native session (the summary's brief `{index, status, startedAt, endedAt, endReason,
/// backendSessionId}` or a detail's session with `prompt`, `source`, `attempts`) as their
/// RunSessionSummary. The attempt range comes from `attempts` when listed, else from the
/// brief's `firstAttemptNumber`/`lastAttemptNumber`/`attemptCount` (W8).
boost::json::object ref_session(const boost::json::object& native_session, std::int64_t max_attempts_per_session);

/// `resumeSource`: {kind:"parent_completion_notification", childRunId, notificationId
/// "<child>:<childSessionIndex>"} when `native_source` carries a child's completion
/// (directly, or in `sources`/`queued`), else null.
boost::json::value ref_resume_source(const boost::json::object& native_source);

/// The run's `capabilities` (W13): reasons only when refused, mapped onto their enums
/// (abort: already_terminal for ended runs, else not_active_in_daemon; reconfigure:
/// archived or not_initialized); `taskMutation.canEditNotes` = our canSetNotes.
boost::json::object ref_capabilities(const boost::json::object& native_run);

/// W10: a native schedule object as their RunSchedule; null when the run has none or a
/// one-time schedule already fired (nothing is left to run).
boost::json::value ref_schedule(const boost::json::object& native_run);
/// W11: none | paused | due | future, consistent with ref_schedule.
std::string ref_schedule_state(const boost::json::object& native_run, const CompatFacts& facts);

/// W9: {ready, total, satisfied, unsatisfied} from the native dependencyState.
boost::json::object ref_dependency_state(const boost::json::object& native_run);
/// W24: one native dependency (run or group form) as their dependency detail.
boost::json::object ref_dependency(const boost::json::object& native_dependency);
/// W24: one native dependent `{runId, status, type, groupId?, name?, archivedAt?}`.
boost::json::object ref_dependent(const boost::json::object& native_dependent);

/// W19: `{id, name, mimeType, size, sha256, addedAt, relativePath "<id>/<name>"}`.
boost::json::object ref_attachment(const boost::json::object& native_attachment);
/// W29: ref_attachment plus `ownerRunId` (the attachment's run).
boost::json::object ref_attachment_entry(const boost::json::object& native_attachment);
/// W20: `{id, text, createdAt, source}`, source per ref_resume_source.
boost::json::object ref_queued_message(const boost::json::object& native_message);
/// W21: a native frozen hook `{id, phase, run?, builtin?, with?, when, origin, sourcePath}`.
boost::json::object ref_hook_descriptor(const boost::json::object& native_hook);
/// W22: a native hook audit `{hookId, phase, outcome, durationMs, createdAt, message}`.
boost::json::object ref_hook_audit(const boost::json::object& native_audit);
/// W28: `{id, title, body, status, notes}`.
boost::json::object ref_task(const boost::json::object& native_task);

/// W1-W13: a native RunSummary (or RunDetail) as their RunSummary.
boost::json::object ref_summary(const boost::json::object& native_run, const CompatFacts& facts);
/// W14-W27: a native RunDetail as their RunDetail.
boost::json::object ref_detail(const boost::json::object& native_detail, const CompatFacts& facts);

/// W12: the run's `execution`: the answering daemon controls every run it serves.
boost::json::object ref_execution(const CompatFacts& facts);

}  // namespace agentry::api::compat

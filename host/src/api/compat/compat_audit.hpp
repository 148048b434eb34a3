#pragma once
// Our audit records `{runId, cursor, type, actor, at, data}` as agent-runner's
// RunAuditEvent / RunAuditEnvelope / RunAuditHistory (W37, §4.5). One record gives one
// event and keeps its cursor: ours are contiguous per run, as their clients require.

#include "api/compat/compat_facts.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace agentry::api::compat {

/// The type their clients know for ours where one exists (§4.5), else ours unchanged.
std::string ref_audit_type(std::string_view native_type);
/// Their `source` for our actor: api/ws/cli → cli; daemon/schedule → daemon; agent (a call
/// made with a run's own token, as their agents' task commands) → task_command;
/// everything else (engine, hook, ...) → system.
std::string ref_audit_source(std::string_view native_actor);

/// `{type, recordedAt, source, hostMode, controllerInstanceId, sessionIndex?,
/// attemptNumber?, fields}`; the optional numbers come from the record's data when it
/// names them as non-negative integers.
boost::json::object ref_audit_event(const boost::json::object& native_record, const CompatFacts& facts);
/// `{runId, cursor, event}`.
boost::json::object ref_audit_envelope(const boost::json::object& native_record, const CompatFacts& facts);
/// `{runId, events: envelopes, lastCursor}` from our audit page `{runId?, events,
/// lastCursor?}`; `run_id` names the run when the page does not. lastCursor falls back to
/// the newest event's cursor, else 0.
boost::json::object ref_audit_history(const boost::json::object& native_page, const std::string& run_id,
                                      const CompatFacts& facts);

}  // namespace agentry::api::compat

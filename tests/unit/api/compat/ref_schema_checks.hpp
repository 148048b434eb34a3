#pragma once
// Hand-written checkers for agent-runner's wire DTOs, written from
// docs/design/agent-runner-compat.md §2.4 and the reference's published schemas: member
// sets, types, nullability, enums, strict objects and absent-vs-null. A checker returns
// every problem it finds as "<path>: <what>", empty when the value passes.
//
// Objects are checked for their exact member set: a zod object that is not strict
// accepts extra members, but our translators are meant to emit exactly theirs, so an
// extra member is reported too (strictness of their schema is then implied).
//
// Written with schema_check.hpp; run DTOs in ref_run_checks.cpp, audit, timeline,
// workspace and the rest in ref_wire_checks.cpp, definitions in ref_definition_checks.cpp.

#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace agentry::api::compat::testing {

using Problems = std::vector<std::string>;

Problems check_run_summary(const boost::json::value& v);
Problems check_run_detail(const boost::json::value& v);
Problems check_run_session(const boost::json::value& v);
Problems check_capabilities(const boost::json::value& v);
Problems check_schedule(const boost::json::value& v);  // RunSchedule | null
Problems check_schedule_state(const boost::json::value& v);
Problems check_dependency_state(const boost::json::value& v);
Problems check_dependency(const boost::json::value& v);
Problems check_dependent(const boost::json::value& v);
Problems check_attachment(const boost::json::value& v);
Problems check_attachment_entry(const boost::json::value& v);
Problems check_queued_message(const boost::json::value& v);
Problems check_hook_descriptor(const boost::json::value& v);
Problems check_hook_audit(const boost::json::value& v);
Problems check_task(const boost::json::value& v);
Problems check_execution(const boost::json::value& v);

Problems check_archive_result(const boost::json::value& v);
Problems check_name_result(const boost::json::value& v);
Problems check_note_result(const boost::json::value& v);
Problems check_pinned_result(const boost::json::value& v);
Problems check_backend_session_result(const boost::json::value& v);
Problems check_group_result(const boost::json::value& v);
Problems check_dependencies_result(const boost::json::value& v);
Problems check_daemon_info(const boost::json::value& v);
Problems check_queue_message_result(const boost::json::value& v);
Problems check_remove_queued_message_result(const boost::json::value& v);
Problems check_attachment_remove_result(const boost::json::value& v);
Problems check_delete_result(const boost::json::value& v);
Problems check_task_delete_result(const boost::json::value& v);

/// Stream events: `summary_upsert {summary}` | `summary_removed {runId}`, and
/// `detail_updated {detail}`.
Problems check_summary_stream_event(const boost::json::value& v);
Problems check_detail_stream_event(const boost::json::value& v);

/// The timeline (built by the compat timeline hub, slice 5): RunTimelineHistory,
/// RunTimelineAttempt, RunTimelineEnvelope (the event is `{type, ...}`, open).
Problems check_timeline_history(const boost::json::value& v);
Problems check_timeline_attempt(const boost::json::value& v);
Problems check_timeline_envelope(const boost::json::value& v);

/// RunInputSurface `{runSettings, assignmentInputs}` (W35).
Problems check_input_surface(const boost::json::value& v);
/// `/app-config.json`: exactly `{webBasePath}` (their client's schema is strict).
Problems check_app_config(const boost::json::value& v);

Problems check_audit_event(const boost::json::value& v);
Problems check_audit_envelope(const boost::json::value& v);
Problems check_audit_history(const boost::json::value& v);

Problems check_workspace_entry(const boost::json::value& v);
Problems check_workspace_directory(const boost::json::value& v);
Problems check_workspace_search(const boost::json::value& v);
Problems check_workspace_file(const boost::json::value& v);
Problems check_workspace_diff(const boost::json::value& v);

Problems check_definition_list(const boost::json::value& v);
Problems check_definition_detail(const boost::json::value& v);

/// The problems joined one per line, for a test's failure message.
std::string describe(const Problems& problems);

}  // namespace agentry::api::compat::testing

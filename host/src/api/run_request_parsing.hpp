#pragma once
// JSON bodies -> typed engine commands. Shared by HTTP routes and (later) WebSocket
// methods so both transports accept exactly the same input.

#include "api/json_body.hpp"
#include "engine/requests.hpp"
#include "core/pages.hpp"

#include <map>
#include <string>

namespace agentry::api {

/// `agent_required` false: a re-initialization (runs.init with runId), where an absent
/// agent means the run's own.
core::Result<engine::InitRequest> parse_init_request(const JsonBody& body, engine::VarOrigin origin,
                                                     bool agent_required = true);
core::Result<engine::ResumeRequest> parse_resume_request(const JsonBody& body);
/// { type: "run", runId } or { type: "group", groupId }: one dependency, as the
/// reference's dependency routes take it.
core::Result<core::Dependency> parse_dependency(const JsonBody& body);
core::Result<engine::ReconfigureRequest> parse_reconfigure_request(const JsonBody& body);
core::Result<engine::TaskPatch> parse_task_patch(const JsonBody& body);
core::Result<engine::NewTask> parse_new_task(const JsonBody& body);

/// GET /api/runs query: exactly one of cwd, repo, global=true, runGroupId; plus
/// includeArchived, limit (1-500, default 100) and cursor.
core::Result<core::RunQuery> parse_run_query(const std::map<std::string, std::string>& query);

}  // namespace agentry::api

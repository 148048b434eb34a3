// The HTTP API: each route names the operation it runs. Path parameters and the JSON
// body (or, for GET, the query string) become the operation's parameters.

#include "api/http_routes.hpp"

#include "api/json_body.hpp"
#include "api/router.hpp"

namespace agentry::api {
namespace json = boost::json;

namespace {

enum class ParamsFrom { body, query };

struct Route {
  const char* method;
  const char* path;
  const char* operation;
};

// clang-format off
constexpr Route routes[] = {
    {"GET",    "/api/daemon",                                      "daemon.info"},
    {"GET",    "/api/daemons",                                     "daemons.list"},
    {"GET",    "/api/backends",                                    "backends.list"},
    {"GET",    "/api/usage",                                       "usage.summary"},
    {"GET",    "/api/runs",                                        "runs.list"},
    {"POST",   "/api/runs",                                        "runs.start"},
    {"POST",   "/api/runs/init",                                   "runs.init"},
    {"GET",    "/api/runs/:runId",                                 "runs.get"},
    {"DELETE", "/api/runs/:runId",                                 "runs.delete"},
    {"GET",    "/api/runs/:runId/brief",                           "runs.brief"},
    {"POST",   "/api/runs/:runId/ready",                           "runs.ready"},
    {"POST",   "/api/runs/:runId/resume",                          "runs.resume"},
    {"POST",   "/api/runs/:runId/abort",                           "runs.abort"},
    {"POST",   "/api/runs/:runId/ask",                             "runs.ask"},
    {"POST",   "/api/runs/:runId/archive",                         "runs.archive"},
    {"POST",   "/api/runs/:runId/unarchive",                       "runs.unarchive"},
    {"POST",   "/api/runs/:runId/reset",                           "runs.reset"},
    {"POST",   "/api/runs/:runId/reconfigure",                     "runs.reconfigure"},
    {"POST",   "/api/runs/:runId/name",                            "runs.setName"},
    {"POST",   "/api/runs/:runId/note",                            "runs.setNote"},
    {"POST",   "/api/runs/:runId/pinned",                          "runs.setPinned"},
    {"POST",   "/api/runs/:runId/backend-session",                 "runs.setBackendSession"},
    {"POST",   "/api/runs/:runId/backend-session/clear",           "runs.clearBackendSession"},
    {"POST",   "/api/runs/:runId/group",                           "runs.setGroup"},
    {"POST",   "/api/runs/:runId/group/clear",                     "runs.clearGroup"},
    {"GET",    "/api/runs/:runId/queued-resume-messages",          "runs.listQueuedResumeMessages"},
    {"POST",   "/api/runs/:runId/queued-resume-messages",          "runs.queueResumeMessage"},
    {"DELETE", "/api/runs/:runId/queued-resume-messages/:messageId", "runs.removeQueuedResumeMessage"},
    {"POST",   "/api/runs/:runId/approvals/:approvalId",           "runs.answerApproval"},
    {"GET",    "/api/runs/:runId/audit",                           "runs.auditHistory"},
    {"GET",    "/api/runs/:runId/timeline",                        "runs.timelineHistory"},
    {"GET",    "/api/runs/:runId/tasks",                           "tasks.list"},
    {"POST",   "/api/runs/:runId/tasks",                           "tasks.add"},
    {"GET",    "/api/runs/:runId/tasks/:taskId",                   "tasks.get"},
    {"PATCH",  "/api/runs/:runId/tasks/:taskId",                   "tasks.set"},
    {"DELETE", "/api/runs/:runId/tasks/:taskId",                   "tasks.delete"},
    {"POST",   "/api/runs/:runId/tasks/:taskId/append-notes",      "tasks.appendNotes"},
    {"GET",    "/api/runs/:runId/workspace/files",                 "workspace.files"},
    {"GET",    "/api/runs/:runId/workspace/search",                "workspace.search"},
    {"GET",    "/api/runs/:runId/workspace/file",                  "workspace.file"},
    {"GET",    "/api/runs/:runId/workspace/diff",                  "workspace.diff"},
    {"GET",    "/api/runs/:runId/workspace/refs",                  "workspace.refs"},
    {"GET",    "/api/agents",                                      "agents.list"},
    {"GET",    "/api/agents/:target",                              "agents.get"},
    {"GET",    "/api/assignments",                                 "assignments.list"},
    {"GET",    "/api/assignments/:target",                         "assignments.get"},
    {"GET",    "/api/launchers",                                   "launchers.list"},
    {"GET",    "/api/launchers/:target",                           "launchers.get"},
    {"GET",    "/api/environments",                                "environments.list"},
    {"GET",    "/api/environments/:target",                        "environments.get"},
    {"GET",    "/api/containers",                                  "environments.status"},
    {"POST",   "/api/containers/cleanup",                          "environments.cleanup"},
    {"GET",    "/api/task-definitions",                            "taskDefinitions.list"},
    {"GET",    "/api/task-definitions/:target",                    "taskDefinitions.get"},
    {"GET",    "/api/triggers",                                    "triggers.list"},
    {"GET",    "/api/projects/trust",                              "projects.trustStatus"},
    {"POST",   "/api/projects/trust",                              "projects.trust"},
    {"POST",   "/api/projects/trust/revoke",                       "projects.revokeTrust"},
    {"GET",    "/api/projects/trusted",                            "projects.listTrusted"},
};
// clang-format on

Handler http_operation(const Operations& ops, std::string name, ParamsFrom from) {
  return [&ops, name = std::move(name), from](const HttpRequest& request) {
    json::object params;
    if (from == ParamsFrom::body) {
      auto body = JsonBody::parse(request.body);
      if (!body) return error_response(body.error());
      params = body->object();
    } else {
      for (const auto& [key, value] : request.query) params[key] = value;
    }
    for (const auto& [key, value] : request.params) {
      if (params.contains(key))
        return error_response(core::ErrorCode::invalid_request,
                              "'" + key + "' is part of the path; leave it out of the request", {{"field", key}});
      params[key] = value;
    }
    return operation_response(ops.call(name, OperationRequest{std::move(params), engine::Actor{"api"},
                                                              engine::VarOrigin::web, request.scope_run_id,
                                                              /*over_http=*/true, /*answer_after_write=*/true}));
  };
}

}  // namespace

HttpResponse operation_response(core::Result<OperationResult> result, std::optional<int> status) {
  if (!result) return error_response(result.error());
  if (result->blocking) {
    HttpResponse later;
    later.blocking = [blocking = std::move(result->blocking), status] {
      auto done = finish(blocking());
      return done ? json_response(status.value_or(done->http_status), done->body) : error_response(done.error());
    };
    return later;
  }
  if (result->after_write) {
    HttpResponse later;
    later.after_write = [start = std::move(result->after_write), status](auto reply) {
      start([reply = std::move(reply), status](MakeAnswer make) {
        reply([make = std::move(make), status] { return operation_response(make(), status); });
      });
    };
    return later;
  }
  return json_response(status.value_or(result->http_status), result->body);
}

Handler operation_handler(const Operations& ops, std::string name, bool from_query) {
  return http_operation(ops, std::move(name), from_query ? ParamsFrom::query : ParamsFrom::body);
}

void add_operation_routes(Router& router, const Operations& ops) {
  for (const auto& route : routes) {
    const std::string method = route.method;
    router.add(method, route.path,
               http_operation(ops, route.operation, method == "GET" ? ParamsFrom::query : ParamsFrom::body));
  }
}

}  // namespace agentry::api

// agent-runner's HTTP API (its apps/cli daemon routes) on the compat methods: path
// parameters and the JSON body (GET: the query) become the method's parameters, the run
// named `target` as its methods name it.

#include "api/compat/compat_operations.hpp"
#include "api/compat/compat_routes.hpp"
#include "api/http_routes.hpp"
#include "api/json_body.hpp"

namespace agentry::api::compat {
namespace json = boost::json;
namespace {

struct Route {
  const char* method;
  const char* path;
  const char* operation;
  const char* wrap = nullptr;     // HTTP wraps the method's answer in this member (daemon.info only)
  const char* body_as = nullptr;  // the body is this one parameter (a dependency, a schedule)
};

// clang-format off
constexpr Route routes[] = {
    {"GET", "/api/daemon",                               "daemon.info",          "daemon"},
    {"GET", "/api/agents",                               "agents.list",          nullptr},
    {"GET", "/api/agents/:target",                       "agents.get",           nullptr},
    {"GET", "/api/assignments",                          "assignments.list",     nullptr},
    {"GET", "/api/assignments/:target",                  "assignments.get",      nullptr},
    {"GET", "/api/launchers",                            "launchers.list",       nullptr},
    {"GET", "/api/launchers/:target",                    "launchers.get",        nullptr},
    {"GET", "/api/environments",                         "environments.list",    nullptr},
    {"GET", "/api/environments/:target",                 "environments.get",     nullptr},
    {"GET", "/api/task-definitions",                     "taskDefinitions.list", nullptr},
    {"GET", "/api/task-definitions/:target",             "taskDefinitions.get",  nullptr},
    {"GET", "/api/run-input-surface",                    "compat.runInputSurface", nullptr},
    {"GET", "/api/runs/:runId",                          "runs.get",             nullptr},
    {"GET", "/api/runs/:runId/audit",                    "runs.auditHistory",    nullptr},
    {"GET", "/api/runs/:runId/timeline",                 "runs.timelineHistory", nullptr},
    {"GET", "/api/runs/:runId/tasks",                    "tasks.list",           nullptr},
    {"GET", "/api/runs/:runId/tasks/:taskId",            "tasks.get",            nullptr},
    {"GET", "/api/runs/:runId/workspace/files",          "workspace.files",      nullptr},
    {"GET", "/api/runs/:runId/workspace/search",         "workspace.search",     nullptr},
    {"GET", "/api/runs/:runId/workspace/file",           "workspace.file",       nullptr},
    {"GET", "/api/runs/:runId/workspace/diff",           "workspace.diff",       nullptr},
    {"POST", "/api/runs",                                "runs.start"},
    {"POST", "/api/runs/init",                           "runs.init"},
    {"POST", "/api/runs/:runId/resume",                  "runs.resume"},
    {"DELETE", "/api/runs/:runId",                       "runs.delete"},
    {"POST", "/api/runs/:runId/ready",                   "runs.ready"},
    {"POST", "/api/runs/:runId/abort",                   "runs.abort"},
    {"POST", "/api/runs/:runId/archive",                 "runs.archive"},
    {"POST", "/api/runs/:runId/unarchive",               "runs.unarchive"},
    {"POST", "/api/runs/:runId/reset",                   "runs.reset"},
    {"POST", "/api/runs/:runId/reconfigure",             "runs.reconfigure"},
    {"POST", "/api/runs/:runId/name",                    "runs.setName"},
    {"POST", "/api/runs/:runId/note",                    "runs.setNote"},
    {"POST", "/api/runs/:runId/pinned",                  "runs.setPinned"},
    {"POST", "/api/runs/:runId/backend-session",         "runs.setBackendSession"},
    {"POST", "/api/runs/:runId/backend-session/clear",   "runs.clearBackendSession"},
    {"POST", "/api/runs/:runId/group",                   "runs.setGroup"},
    {"POST", "/api/runs/:runId/group/clear",             "runs.clearGroup"},
    {"POST", "/api/runs/:runId/dependencies",            "runs.addDependency",    nullptr, "dependency"},
    {"DELETE", "/api/runs/:runId/dependencies",          "runs.removeDependency", nullptr, "dependency"},
    {"POST", "/api/runs/:runId/dependencies/clear",      "runs.clearDependencies"},
    {"PUT", "/api/runs/:runId/schedule",                 "runs.setSchedule",      nullptr, "schedule"},
    {"DELETE", "/api/runs/:runId/schedule",              "runs.clearSchedule"},
    {"POST", "/api/runs/:runId/schedule/enable",         "runs.enableSchedule"},
    {"POST", "/api/runs/:runId/schedule/disable",        "runs.disableSchedule"},
    {"POST", "/api/runs/:runId/queued-resume-messages",  "runs.queueResumeMessage"},
    {"DELETE", "/api/runs/:runId/queued-resume-messages/:messageId", "runs.removeQueuedResumeMessage"},
    {"POST", "/api/runs/:runId/tasks",                   "tasks.add"},
    {"PATCH", "/api/runs/:runId/tasks/:taskId",          "tasks.set"},
    {"DELETE", "/api/runs/:runId/tasks/:taskId",         "tasks.delete"},
    {"POST", "/api/runs/:runId/tasks/:taskId/append-notes", "tasks.appendNotes"},
};
// clang-format on

/// The method's answer; every success is 200 there, creations too.
HttpResponse answer_of(core::Result<OperationResult> result, const char* wrap) {
  if (result && wrap && !result->blocking) result->body = json::object{{wrap, std::move(result->body)}};
  return operation_response(std::move(result), 200);
}

OperationRequest request_of(const HttpRequest& request, json::object params) {
  return OperationRequest{std::move(params), engine::Actor{"api"}, engine::VarOrigin::web, request.scope_run_id,
                          /*over_http=*/true};
}

/// The method's parameters from the request: the query (GET) or the JSON body, then the
/// path's, `runId` under their name `target`.
core::Result<json::object> params_of_request(const HttpRequest& request, bool from_query, const char* body_as) {
  json::object params;
  if (from_query) {
    for (const auto& [key, value] : request.query) params[key] = value;
  } else if (!request.body.empty()) {
    auto body = JsonBody::parse(request.body);
    if (!body) return body.failure();
    params = body_as ? json::object{{body_as, body->object()}} : body->object();
  }
  for (const auto& [key, value] : request.params) {
    const std::string name = key == "runId" ? "target" : key;
    if (params.contains(name))
      return core::fail(core::ErrorCode::invalid_request, "'" + name + "' is part of the path; leave it out",
                        {{"field", name}});
    params[name] = value;
  }
  return params;
}

Handler method_handler(const Operations& ops, const Route& route) {
  const bool from_query = std::string_view(route.method) == "GET";
  return [&ops, operation = route.operation, wrap = route.wrap, body_as = route.body_as, from_query](const HttpRequest& request) {
    auto params = params_of_request(request, from_query, body_as);
    if (!params) return error_response(params.error());
    return answer_of(call_compat(ops, operation, request_of(request, std::move(*params))), wrap);
  };
}

/// GET /api/runs: its query (includeArchived and at most one of cwd, repo, global=true,
/// runGroupId) as the method's scope.
HttpResponse list_runs(const Operations& ops, const HttpRequest& request) {
  json::object params;
  json::object scope;
  int scopes = 0;
  for (const auto& [key, value] : request.query) {
    if (key == "includeArchived") {
      if (value != "true" && value != "false")
        return error_response(core::ErrorCode::invalid_request, "includeArchived must be true or false",
                              {{"field", "includeArchived"}});
      params["includeArchived"] = value == "true";
    } else if (key == "cwd" || key == "repo" || key == "runGroupId") {
      ++scopes;
      scope = json::object{{"kind", key == "runGroupId" ? "group" : key}, {key, value}};
    } else if (key == "global") {
      if (value != "true")
        return error_response(core::ErrorCode::invalid_request, "global must be true when given", {{"field", "global"}});
      ++scopes;
      scope = json::object{{"kind", "global"}};
    } else {
      return error_response(core::ErrorCode::invalid_request, "unknown query parameter '" + key + "'",
                            {{"field", key}});
    }
  }
  if (scopes > 1)
    return error_response(core::ErrorCode::invalid_request,
                          "give at most one of cwd, repo, global=true and runGroupId");
  if (scopes == 1) params["scope"] = std::move(scope);
  return answer_of(call_compat(ops, "runs.list", request_of(request, std::move(params))), nullptr);
}

}  // namespace

void add_compat_api_routes(Router& router, const Operations& ops) {
  for (const auto& route : routes) router.add(route.method, route.path, method_handler(ops, route));
  router.add("GET", "/api/runs", [&ops](const HttpRequest& r) { return list_runs(ops, r); });
}

}  // namespace agentry::api::compat

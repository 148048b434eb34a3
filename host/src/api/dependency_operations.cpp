// Run dependencies over the API: the operations runs.addDependency,
// runs.removeDependency, runs.clearDependencies (WebSocket methods and embedded CLI),
// and their HTTP routes. The routes take the reference's body, the dependency itself
// ({ type: "run", runId } | { type: "group", groupId }), whose runId would collide with
// the path's: so they pass it to the operation as `dependency`.

#include "api/http_message.hpp"
#include "api/http_routes.hpp"
#include "api/operations.hpp"
#include "api/router.hpp"
#include "api/run_request_parsing.hpp"

namespace agentry::api {
namespace json = boost::json;
using core::Result;

namespace {

/// params.dependency, parsed.
Result<core::Dependency> dependency_param(const JsonBody& params) {
  auto body = params.optional_body("dependency");
  if (!body) return body.failure();
  if (!*body)
    return core::fail(core::ErrorCode::invalid_request,
                      "field 'dependency' is required: { type: \"run\", runId } or { type: \"group\", groupId }",
                      {{"field", "dependency"}});
  return parse_dependency(**body);
}

/// The run's detail after `change`, as every run mutation answers.
Operation dependency_command(ApiContext& ctx, bool with_dependency,
                             std::function<Result<core::Run>(const std::string&, const std::optional<core::Dependency>&,
                                                             const engine::Actor&)>
                                 change) {
  return [&ctx, with_dependency, change = std::move(change)](const OperationRequest& request) -> Result<OperationResult> {
    auto params = with_dependency ? params_of(request, {"runId", "dependency"}) : params_of(request, {"runId"});
    if (!params) return params.failure();
    auto id = run_id_of(*params);
    if (!id) return id.failure();
    std::optional<core::Dependency> dependency;
    if (with_dependency) {
      auto parsed = dependency_param(*params);
      if (!parsed) return parsed.failure();
      dependency = std::move(*parsed);
    }
    auto run = change(*id, dependency, request.actor);
    if (!run) return run.failure();
    return run_detail_result(ctx.engine, run->id);
  };
}

/// An HTTP route whose body (the dependency, or {} for clear) becomes params.dependency.
Handler dependency_route(const Operations& ops, std::string operation, bool with_dependency) {
  return [&ops, operation = std::move(operation), with_dependency](const HttpRequest& request) {
    auto body = JsonBody::parse(request.body);
    if (!body) return error_response(body.error());
    json::object params;
    if (with_dependency) {
      // agentry's operation shape ({ dependency: {...} }) is accepted here too.
      if (body->has("dependency")) params = body->object();
      else params["dependency"] = body->object();
    } else {
      params = body->object();
    }
    if (params.contains("runId"))
      return error_response(core::ErrorCode::invalid_request, "'runId' is part of the path; leave it out of the request",
                            {{"field", "runId"}});
    params["runId"] = request.params.at("runId");
    auto result = finish(ops.call(operation, OperationRequest{std::move(params), engine::Actor{"api"}, engine::VarOrigin::web,
                                                       request.scope_run_id, /*over_http=*/true}));
    if (!result) return error_response(result.error());
    return json_response(result->http_status, result->body);
  };
}

}  // namespace

void add_dependency_operations(Operations& ops, ApiContext& ctx) {
  auto& engine = ctx.engine;
  ops.add("runs.addDependency", dependency_command(ctx, true, [&engine](auto& id, auto& d, auto& actor) {
            return engine.dependencies().add(id, *d, actor);
          }));
  ops.add("runs.removeDependency", dependency_command(ctx, true, [&engine](auto& id, auto& d, auto& actor) {
            return engine.dependencies().remove(id, d->type, d->target, actor);
          }));
  ops.add("runs.clearDependencies", dependency_command(ctx, false, [&engine](auto& id, auto&, auto& actor) {
            return engine.dependencies().clear(id, actor);
          }));
}

void add_dependency_routes(Router& router, const Operations& ops) {
  router.add("POST", "/api/runs/:runId/dependencies", dependency_route(ops, "runs.addDependency", true));
  router.add("DELETE", "/api/runs/:runId/dependencies", dependency_route(ops, "runs.removeDependency", true));
  router.add("POST", "/api/runs/:runId/dependencies/clear", dependency_route(ops, "runs.clearDependencies", false));
}

}  // namespace agentry::api

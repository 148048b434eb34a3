// HTTP routes for a run's tasks.

#include "api/api_context.hpp"
#include "api/route_support.hpp"
#include "api/router.hpp"
#include "api/run_request_parsing.hpp"
#include "events/projections.hpp"

namespace agentry::api {
namespace json = boost::json;
namespace {

HttpResponse task_response(const core::Result<core::Task>& task, int status = 200) {
  if (!task) return error_response(task.error());
  return json_response(status, json::object{{"task", events::task_json(*task)}});
}

}  // namespace

void add_task_routes(Router& router, ApiContext& ctx) {
  auto& engine = ctx.engine;
  router.add("GET", "/api/runs/:runId/tasks", [&engine](const HttpRequest& r) {
    auto id = run_id_param(r);
    if (!id) return error_response(id.error());
    auto tasks = engine.list_tasks(*id);
    if (!tasks) return error_response(tasks.error());
    json::array out;
    for (const auto& t : *tasks) out.push_back(events::task_json(t));
    return json_response(200, json::object{{"runId", *id}, {"tasks", std::move(out)}});
  });
  router.add("GET", "/api/runs/:runId/tasks/:taskId", [&engine](const HttpRequest& r) {
    auto id = run_id_param(r);
    if (!id) return error_response(id.error());
    return task_response(engine.get_task(*id, r.params.at("taskId")));
  });
  router.add("PATCH", "/api/runs/:runId/tasks/:taskId", [&engine](const HttpRequest& r) {
    auto id = run_id_param(r);
    if (!id) return error_response(id.error());
    auto body = JsonBody::parse(r.body, false);
    if (!body) return error_response(body.error());
    auto patch = parse_task_patch(*body);
    if (!patch) return error_response(patch.error());
    return task_response(engine.update_task(*id, r.params.at("taskId"), *patch, http_actor));
  });
  router.add("POST", "/api/runs/:runId/tasks/:taskId/append-notes", [&engine](const HttpRequest& r) {
    auto id = run_id_param(r);
    if (!id) return error_response(id.error());
    auto body = parse_body(r, {"text"});
    if (!body) return error_response(body.error());
    auto text = body->required_string("text");
    if (!text) return error_response(text.error());
    return task_response(engine.append_task_notes(*id, r.params.at("taskId"), *text, http_actor));
  });
  router.add("POST", "/api/runs/:runId/tasks", [&engine](const HttpRequest& r) {
    auto id = run_id_param(r);
    if (!id) return error_response(id.error());
    auto body = JsonBody::parse(r.body, false);
    if (!body) return error_response(body.error());
    auto task = parse_new_task(*body);
    if (!task) return error_response(task.error());
    return task_response(engine.add_task(*id, *task, http_actor), 201);
  });
  router.add("DELETE", "/api/runs/:runId/tasks/:taskId", [&engine](const HttpRequest& r) {
    auto id = run_id_param(r);
    if (!id) return error_response(id.error());
    auto deleted = engine.delete_task(*id, r.params.at("taskId"), http_actor);
    if (!deleted) return error_response(deleted.error());
    return json_response(200, json::object{{"result", {{"runId", deleted->run_id},
                                                         {"taskId", deleted->task_id},
                                                         {"deleted", true},
                                                         {"updatedAt", deleted->updated_at}}}});
  });
}

}  // namespace agentry::api

// HTTP routes for runs: create, list, read, lifecycle transitions and metadata.

#include "api/api_context.hpp"
#include "api/route_support.hpp"
#include "api/router.hpp"
#include "api/run_request_parsing.hpp"

namespace agentry::api {
namespace json = boost::json;
namespace {

using RunCommand = std::function<core::Result<core::Run>(const std::string& run_id, const JsonBody& body)>;

/// POST /api/runs/:runId/<verb>: validate id and body, run the command, answer with the detail.
Handler run_command(ApiContext& ctx, std::initializer_list<std::string_view> allowed_keys, RunCommand command) {
  std::vector<std::string_view> keys(allowed_keys);
  return [&ctx, keys, command = std::move(command)](const HttpRequest& request) {
    auto id = run_id_param(request);
    if (!id) return error_response(id.error());
    auto body = JsonBody::parse(request.body);
    if (!body) return error_response(body.error());
    if (auto ok = body->allow_only(keys); !ok) return error_response(ok.error());
    auto run = command(*id, *body);
    if (!run) return error_response(run.error());
    return run_detail_response(ctx.engine, run->id);
  };
}

HttpResponse list_runs(ApiContext& ctx, const HttpRequest& request) {
  if (auto ok = allow_query(request, {"cwd", "repo", "global", "runGroupId", "includeArchived", "limit", "cursor"});
      !ok)
    return error_response(ok.error());
  auto query = parse_run_query(request.query);
  if (!query) return error_response(query.error());
  auto page = ctx.engine.list(*query);
  if (!page) return error_response(page.error());
  json::array runs;
  for (auto& summary : page->summaries) runs.emplace_back(std::move(summary));
  json::object out{{"runs", std::move(runs)}};
  out["nextCursor"] = page->next_cursor ? json::value(*page->next_cursor) : json::value(nullptr);
  return json_response(200, out);
}

Handler create_run(ApiContext& ctx, bool start) {
  return [&ctx, start](const HttpRequest& request) {
    auto body = JsonBody::parse(request.body, false);
    if (!body) return error_response(body.error());
    auto init = parse_init_request(*body, engine::VarOrigin::web);
    if (!init) return error_response(init.error());
    auto run = start ? ctx.engine.start(*init, http_actor) : ctx.engine.init(*init, http_actor);
    if (!run) return error_response(run.error());
    return run_detail_response(ctx.engine, run->id, 201);
  };
}

}  // namespace

void add_run_routes(Router& router, ApiContext& ctx) {
  auto& engine = ctx.engine;
  router.add("GET", "/api/runs", [&ctx](const HttpRequest& r) { return list_runs(ctx, r); });
  router.add("POST", "/api/runs", create_run(ctx, true));
  router.add("POST", "/api/runs/init", create_run(ctx, false));
  router.add("GET", "/api/runs/:runId", [&ctx](const HttpRequest& r) {
    if (auto ok = allow_query(r, {}); !ok) return error_response(ok.error());
    auto id = run_id_param(r);
    if (!id) return error_response(id.error());
    return run_detail_response(ctx.engine, *id);
  });
  router.add("DELETE", "/api/runs/:runId", [&ctx](const HttpRequest& r) {
    auto id = run_id_param(r);
    if (!id) return error_response(id.error());
    if (auto ok = ctx.engine.remove(*id, http_actor); !ok) return error_response(ok.error());
    return json_response(200, json::object{{"result", {{"runId", *id}, {"deleted", true}}}});
  });

  router.add("POST", "/api/runs/:runId/ready",
             run_command(ctx, {}, [&engine](auto& id, auto&) { return engine.ready(id, http_actor); }));
  router.add("POST", "/api/runs/:runId/resume", run_command(ctx, {"message"}, [&engine](auto& id, auto& body) {
               auto request = parse_resume_request(body);
               if (!request) return core::Result<core::Run>(request.failure());
               return engine.resume(id, *request, http_actor);
             }));
  router.add("POST", "/api/runs/:runId/abort", run_command(ctx, {"reason"}, [&engine](auto& id, auto& body) {
               auto reason = body.optional_string("reason");
               if (!reason) return core::Result<core::Run>(reason.failure());
               return engine.abort(id, reason->value_or(""), http_actor);
             }));
  router.add("POST", "/api/runs/:runId/archive",
             run_command(ctx, {}, [&engine](auto& id, auto&) { return engine.archive(id, http_actor); }));
  router.add("POST", "/api/runs/:runId/unarchive",
             run_command(ctx, {}, [&engine](auto& id, auto&) { return engine.unarchive(id, http_actor); }));
  router.add("POST", "/api/runs/:runId/reset",
             run_command(ctx, {}, [&engine](auto& id, auto&) { return engine.reset(id, http_actor); }));
  router.add("POST", "/api/runs/:runId/reconfigure",
             run_command(ctx, {"vars", "message"}, [&engine](auto& id, auto& body) {
               auto request = parse_reconfigure_request(body);
               if (!request) return core::Result<core::Run>(request.failure());
               return engine.reconfigure(id, *request, http_actor);
             }));

  router.add("POST", "/api/runs/:runId/name", run_command(ctx, {"name"}, [&engine](auto& id, auto& body) {
               auto name = body.nullable_string("name");
               if (!name) return core::Result<core::Run>(name.failure());
               if (!name->present)
                 return core::Result<core::Run>(
                     core::fail(core::ErrorCode::invalid_request, "field 'name' is required (null clears it)",
                                {{"field", "name"}}));
               if (name->value && name->value->size() > max_name_bytes)
                 return core::Result<core::Run>(core::fail(core::ErrorCode::invalid_request,
                                                           "field 'name' is longer than 200 bytes", {{"field", "name"}}));
               return engine.set_name(id, name->value, http_actor);
             }));
  router.add("POST", "/api/runs/:runId/note", run_command(ctx, {"note"}, [&engine](auto& id, auto& body) {
               auto note = body.nullable_string("note");
               if (!note) return core::Result<core::Run>(note.failure());
               if (!note->present)
                 return core::Result<core::Run>(
                     core::fail(core::ErrorCode::invalid_request, "field 'note' is required (null clears it)",
                                {{"field", "note"}}));
               if (note->value && note->value->size() > max_note_bytes)
                 return core::Result<core::Run>(core::fail(core::ErrorCode::invalid_request,
                                                           "field 'note' is longer than 64 KiB", {{"field", "note"}}));
               return engine.set_note(id, note->value, http_actor);
             }));
  router.add("POST", "/api/runs/:runId/pinned", run_command(ctx, {"pinned"}, [&engine](auto& id, auto& body) {
               auto pinned = body.required_bool("pinned");
               if (!pinned) return core::Result<core::Run>(pinned.failure());
               return engine.set_pinned(id, *pinned, http_actor);
             }));
  router.add("POST", "/api/runs/:runId/backend-session",
             run_command(ctx, {"backendSessionId"}, [&engine](auto& id, auto& body) {
               auto session = body.required_string("backendSessionId");
               if (!session) return core::Result<core::Run>(session.failure());
               if (session->empty())
                 return core::Result<core::Run>(core::fail(core::ErrorCode::invalid_request,
                                                           "field 'backendSessionId' must not be empty; use "
                                                           "/backend-session/clear to clear it",
                                                           {{"field", "backendSessionId"}}));
               return engine.set_backend_session(id, *session, http_actor);
             }));
  router.add("POST", "/api/runs/:runId/backend-session/clear", run_command(ctx, {}, [&engine](auto& id, auto&) {
               return engine.set_backend_session(id, std::nullopt, http_actor);
             }));
  router.add("POST", "/api/runs/:runId/group", run_command(ctx, {"runGroupId"}, [&engine](auto& id, auto& body) {
               auto group = body.required_string("runGroupId");
               if (!group) return core::Result<core::Run>(group.failure());
               return engine.set_group(id, *group, http_actor);
             }));
  router.add("POST", "/api/runs/:runId/group/clear",
             run_command(ctx, {}, [&engine](auto& id, auto&) { return engine.set_group(id, std::nullopt, http_actor); }));
}

}  // namespace agentry::api

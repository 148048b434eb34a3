// agent-runner's timeline routes: its history and its stream of a run, both from the
// run's translator (compat_timelines.hpp), so that their cursors agree.

#include "api/compat/compat_routes.hpp"
#include "api/compat/compat_timelines.hpp"
#include "api/route_support.hpp"
#include "api/run_scope.hpp"

namespace agentry::api::compat {
namespace json = boost::json;
namespace {

/// The run a compat client names, after the same checks our own routes make.
core::Result<std::string> addressed_run(const HttpRequest& r) {
  auto id = run_id_param(r);
  if (!id) return id.failure();
  if (auto allowed = check_stream_scope(*id, r.scope_run_id); !allowed) return allowed.failure();
  return id;
}

}  // namespace

void add_compat_timeline_routes(Router& router, CompatContext& ctx) {
  router.add("GET", "/api/runs/:runId/timeline", [&ctx](const HttpRequest& r) {
    auto id = addressed_run(r);
    if (!id) return error_response(id.error());
    if (auto ok = allow_query(r, {}); !ok) return error_response(ok.error());
    auto history = ctx.timelines.history(*id);
    if (!history) return error_response(history.error());
    return json_response(200, json::object{{"history", std::move(*history)}});
  });
  router.add("GET", "/api/runs/:runId/events/timeline", [&ctx](const HttpRequest& r) {
    auto id = addressed_run(r);
    if (!id) return error_response(id.error());
    auto stream = ctx.timelines.subscribe(*id, /*websocket=*/false);
    if (!stream) return error_response(stream.error());
    HttpResponse response;
    response.content_type = "text/event-stream";
    response.headers.emplace_back("Cache-Control", "no-cache");
    response.stream = std::move(*stream);
    return response;
  });
}

}  // namespace agentry::api::compat

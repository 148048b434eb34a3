// The public routes (the web app's bootstrap config, its files and deep links) and
// the assembly of every HTTP route.

#include "api/api_context.hpp"
#include "api/http_routes.hpp"
#include "api/mcp/mcp_http.hpp"
#include "api/router.hpp"
#include "api/static_files.hpp"

namespace agentry::api {
namespace json = boost::json;

void add_public_routes(Router& router, ApiContext& ctx) {
  router.add("GET", "/app-config.json", [&ctx](const HttpRequest&) {
    return json_response(200, json::object{{"webBasePath", ctx.web_base_path}});
  });
  router.add("GET", "/", [&ctx](const HttpRequest&) { return app_shell_response(ctx.web_dir, ctx.web_base_path); });
  // Everything else that is not the API: a dashboard file, or a deep link the app routes.
  router.set_fallback([&ctx](const HttpRequest& r) {
    if (r.method == "GET" && is_app_route(r.path)) return app_shell_response(ctx.web_dir, ctx.web_base_path);
    if (r.method == "GET" && r.path.rfind("/api/", 0) != 0) return static_file_response(ctx.web_dir, r.path);
    return error_response(core::ErrorCode::not_found, "no route for " + r.method + " " + r.path);
  });
}

void add_all_routes(Router& router, ApiContext& context, const Operations& ops) {
  add_public_routes(router, context);
  add_metrics_route(router);
  add_openapi_route(router);
  add_operation_routes(router, ops);
  add_dependency_routes(router, ops);
  add_schedule_routes(router, ops);
  add_attachment_routes(router, context, ops);
  add_workspace_routes(router, context);
  add_stream_routes(router, context);
  add_browser_routes(router, context);
  mcp::add_mcp_routes(router, context, ops);
  add_trigger_routes(router, context);
}

}  // namespace agentry::api

// The public routes (the web app's bootstrap config and static dashboard files) and
// the assembly of every HTTP route.

#include "api/api_context.hpp"
#include "api/http_routes.hpp"
#include "api/router.hpp"
#include "api/static_files.hpp"

namespace agentry::api {
namespace json = boost::json;

void add_public_routes(Router& router, ApiContext& ctx) {
  router.add("GET", "/app-config.json", [&ctx](const HttpRequest&) {
    return json_response(200, json::object{{"webBasePath", ctx.web_base_path}});
  });
  auto serve_static = [&ctx](const HttpRequest& r) { return static_file_response(ctx.web_dir, r.path); };
  router.add("GET", "/", serve_static);
  router.add("GET", "/:file", serve_static);
  router.add("GET", "/assets/:file", serve_static);
}

void add_all_routes(Router& router, ApiContext& context, const Operations& ops) {
  add_public_routes(router, context);
  add_operation_routes(router, ops);
  add_dependency_routes(router, ops);
  add_schedule_routes(router, ops);
  add_attachment_routes(router, context, ops);
  add_workspace_routes(router, context);
  add_stream_routes(router, context);
}

}  // namespace agentry::api

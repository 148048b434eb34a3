// Daemon facts, the web app's bootstrap config, and the static dashboard files.

#include "api/api_context.hpp"
#include "api/route_support.hpp"
#include "api/router.hpp"
#include "api/static_files.hpp"

namespace agentry::api {
namespace json = boost::json;

void add_daemon_routes(Router& router, ApiContext& ctx) {
  router.add("GET", "/api/daemon", [&ctx](const HttpRequest&) {
    const auto& d = ctx.daemon;
    return json_response(200, json::object{{"daemon", {{"daemonInstanceId", d.daemon_instance_id},
                                                       {"pid", d.pid},
                                                       {"listenUrl", d.listen_url},
                                                       {"version", d.version},
                                                       {"startedAt", d.started_at}}}});
  });
  router.add("GET", "/app-config.json", [&ctx](const HttpRequest&) {
    return json_response(200, json::object{{"webBasePath", ctx.web_base_path}});
  });
  auto serve_static = [&ctx](const HttpRequest& r) { return static_file_response(ctx.web_dir, r.path); };
  router.add("GET", "/", serve_static);
  router.add("GET", "/:file", serve_static);
  router.add("GET", "/assets/:file", serve_static);
}

void add_all_routes(Router& router, ApiContext& context) {
  add_daemon_routes(router, context);
  add_run_routes(router, context);
  add_task_routes(router, context);
  add_history_routes(router, context);
  add_stream_routes(router, context);
  add_definition_routes(router, context);
}

}  // namespace agentry::api

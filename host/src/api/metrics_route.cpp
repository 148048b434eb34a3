// GET /metrics: the process's metrics (core/metrics.hpp) in Prometheus's text format.
// Protected like /api/ (access_policy.cpp); a per-run token may not read it.

#include "api/http_routes.hpp"
#include "api/router.hpp"
#include "core/metrics.hpp"

namespace agentry::api {

void add_metrics_route(Router& router) {
  router.add("GET", "/metrics", [](const HttpRequest& request) {
    if (!request.scope_run_id.empty())
      return error_response(core::ErrorCode::forbidden, "a run's token may not read the daemon's metrics");
    HttpResponse response;
    response.content_type = "text/plain; version=0.0.4; charset=utf-8";
    response.body = core::metrics::registry().render();
    return response;
  });
}

}  // namespace agentry::api

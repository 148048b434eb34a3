// GET /api/runs/:runId/browser/frame: the latest frame of a run's browser live view as
// the image itself (the frame stream is /api/runs/:runId/events/browser). When there is
// none, a 404 whose message says why (events/browser_frames.hpp), never an empty image.

#include "api/api_context.hpp"
#include "api/route_support.hpp"
#include "api/router.hpp"
#include "api/run_scope.hpp"
#include "core/base64.hpp"
#include "events/browser_frames.hpp"

namespace agentry::api {

void add_browser_routes(Router& router, ApiContext& ctx) {
  router.add("GET", "/api/runs/:runId/browser/frame", [&ctx](const HttpRequest& r) {
    auto id = run_id_param(r);
    if (!id) return error_response(id.error());
    if (auto allowed = check_stream_scope(*id, r.scope_run_id); !allowed) return error_response(allowed.error());
    if (auto ok = allow_query(r, {}); !ok) return error_response(ok.error());
    auto view = ctx.engine.view(*id);
    if (!view) return error_response(view.error());
    auto latest = ctx.engine.bus().browser().latest(*id);
    if (!latest || !latest->available) {
      const std::string reason = latest ? latest->reason : events::no_view_reason(view->run);
      return error_response(core::ErrorCode::not_found, "no live view frame for run " + *id + ": " + reason,
                            {{"runId", *id}, {"liveView", "unavailable"}, {"reason", reason}});
    }
    auto image = core::base64_decode(latest->data_base64);
    if (!image) return error_response(core::ErrorCode::internal, "the run's latest frame is not valid base64");
    HttpResponse response;
    response.content_type = latest->mime;
    response.body = std::move(*image);
    response.headers.emplace_back("Cache-Control", "no-store");
    response.headers.emplace_back("X-Agentry-Frame-Seq", std::to_string(latest->seq));
    response.headers.emplace_back("X-Agentry-Frame-At", latest->at);
    return response;
  });
}

}  // namespace agentry::api

// HTTP routes for live streams (Server-Sent Events).

#include "api/api_context.hpp"
#include "api/route_support.hpp"
#include "api/router.hpp"
#include "api/run_scope.hpp"
#include "api/run_streams.hpp"

#include <cstdlib>

namespace agentry::api {
namespace json = boost::json;
namespace {

/// Where a cursor stream starts: Last-Event-ID wins over ?after=, default 0 (everything).
core::Result<std::int64_t> start_cursor(const HttpRequest& r) {
  if (auto ok = allow_query(r, {"after"}); !ok) return ok.failure();
  const std::string* text = r.header("last-event-id");
  const char* name = "Last-Event-ID";
  if (!text || text->empty()) {
    text = r.query_param("after");
    name = "after";
  }
  if (!text || text->empty()) return std::int64_t{0};
  char* end = nullptr;
  long long n = std::strtoll(text->c_str(), &end, 10);
  if (*end != '\0' || n < 0)
    return core::fail(core::ErrorCode::invalid_request, std::string(name) + " must be a non-negative integer cursor",
                      {{"parameter", name}});
  return static_cast<std::int64_t>(n);
}

Handler run_stream(ApiContext& ctx, const char* channel, bool cursor) {
  return [&ctx, channel, cursor](const HttpRequest& r) {
    auto id = run_id_param(r);
    if (!id) return error_response(id.error());
    if (auto allowed = check_stream_scope(*id, r.scope_run_id); !allowed) return error_response(allowed.error());
    std::int64_t after = 0;
    if (cursor) {
      auto start = start_cursor(r);
      if (!start) return error_response(start.error());
      after = *start;
    } else if (auto ok = allow_query(r, {}); !ok) {
      return error_response(ok.error());
    }
    return event_stream_response(open_stream(ctx.engine, {channel, *id, after}));
  };
}

}  // namespace

void add_stream_routes(Router& router, ApiContext& ctx) {
  router.add("GET", "/api/events/run-summaries", [&ctx](const HttpRequest& r) {
    if (auto allowed = check_stream_scope("", r.scope_run_id); !allowed) return error_response(allowed.error());
    if (auto ok = allow_query(r, {}); !ok) return error_response(ok.error());
    return event_stream_response(open_stream(ctx.engine, {"run_summary", "", 0}));
  });
  router.add("GET", "/api/runs/:runId/events/detail", run_stream(ctx, "run_detail", false));
  router.add("GET", "/api/runs/:runId/events/timeline", run_stream(ctx, "run_timeline", true));
  router.add("GET", "/api/runs/:runId/events/audit", run_stream(ctx, "run_audit", true));
  router.add("GET", "/api/runs/:runId/events/browser", run_stream(ctx, "run_browser", false));
}

}  // namespace agentry::api

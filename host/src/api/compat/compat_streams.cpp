// agent-runner's live streams, for its Server-Sent Events routes and its WebSocket
// subscriptions alike: summaries, a run's detail and audit are ours with each frame
// translated (translating_stream.hpp); its timeline comes from the run's translator
// (compat_timelines.hpp), as its history does, so that their cursors agree.

#include "api/compat/compat_dto.hpp"
#include "api/compat/compat_errors.hpp"
#include "api/compat/compat_operations.hpp"
#include "api/compat/compat_routes.hpp"
#include "api/compat/compat_streams.hpp"
#include "api/compat/compat_timelines.hpp"
#include "api/compat/translating_stream.hpp"
#include "api/route_support.hpp"
#include "api/run_scope.hpp"

#include <boost/json/serialize.hpp>

namespace agentry::api::compat {
namespace json = boost::json;
namespace {

std::optional<std::string> summary_frame(const CompatContext& ctx, const json::object& native) {
  if (native.at("type") != "summary_upsert") return json::serialize(native);  // summary_removed {runId}: as it is
  return json::serialize(json::object{
      {"type", "summary_upsert"}, {"summary", ref_summary(native.at("summary").as_object(), facts_of(ctx))}});
}

std::optional<std::string> detail_frame(const CompatContext& ctx, const json::object& native) {
  // Theirs has no removal event: the stream just ends with the run.
  if (native.at("type") != "run_detail") return std::nullopt;
  const auto& run = native.at("run").as_object();
  // One frame for both transports: SSE clients read {type, detail}, a WebSocket
  // notification's params take {type, runId, detail}.
  return json::serialize(
      json::object{{"type", "detail_updated"}, {"runId", run.at("runId")}, {"detail", ref_detail(run, facts_of(ctx))}});
}

std::optional<std::string> audit_frame(const CompatContext& ctx, const json::object& native, bool websocket) {
  const auto facts = facts_of(ctx);
  // A WebSocket notification carries the event beside runId and cursor; SSE the envelope.
  return json::serialize(websocket ? ref_audit_event(native, facts) : ref_audit_envelope(native, facts));
}

Handler run_stream_route(CompatContext& ctx, const char* channel) {
  return [&ctx, channel](const HttpRequest& r) {
    auto id = run_id_param(r);
    if (!id) return error_response(id.error());
    if (auto allowed = check_stream_scope(*id, r.scope_run_id); !allowed) return error_response(allowed.error());
    return event_stream_response(open_compat_stream(ctx, StreamRequest{channel, *id, 0}));
  };
}

}  // namespace

core::Result<std::shared_ptr<EventStream>> open_compat_stream(CompatContext& ctx, const StreamRequest& request) {
  if (request.channel == "run_timeline") {
    if (request.run_id.empty())
      return core::fail(core::ErrorCode::invalid_request, "run_timeline needs a runId", {{"field", "runId"}});
    return ctx.timelines.subscribe(request.run_id, request.websocket);
  }
  if (request.channel != "run_summary" && request.channel != "run_detail" && request.channel != "run_audit")
    return core::fail(core::ErrorCode::invalid_request,
                      "channel must be one of run_summary, run_detail, run_timeline, run_audit", {{"field", "channel"}});
  // Theirs replay from their window; ours from the start of the run's audit.
  auto native = open_stream(ctx.api.engine, StreamRequest{request.channel, request.run_id, 0});
  if (!native) return native.failure();
  const bool websocket = request.websocket;
  FrameRewrite rewrite;
  if (request.channel == "run_summary")
    rewrite = [&ctx](const json::object& n, std::int64_t) { return summary_frame(ctx, n); };
  else if (request.channel == "run_detail")
    rewrite = [&ctx](const json::object& n, std::int64_t) { return detail_frame(ctx, n); };
  else
    rewrite = [&ctx, websocket](const json::object& n, std::int64_t) { return audit_frame(ctx, n, websocket); };
  return translating_stream(std::move(*native), std::move(rewrite));
}

WebSocketDialect compat_websocket_dialect(CompatContext& ctx, const Operations& ops) {
  WebSocketDialect dialect;
  dialect.operations = &ops;
  dialect.call = [](const Operations& o, std::string_view method, const OperationRequest& r) {
    return call_compat(o, method, r);
  };
  dialect.open = [&ctx](const StreamRequest& r) { return open_compat_stream(ctx, r); };
  dialect.error = [](const json::value& id, const core::Error& e) { return compat_jsonrpc_error(id, e); };
  dialect.stream_params = reword_stream_params;
  dialect.stream_result = reword_stream_result;
  dialect.download_data_delay = std::chrono::milliseconds(50);
  return dialect;
}

void add_compat_stream_routes(Router& router, CompatContext& ctx) {
  router.add("GET", "/api/events/run-summaries", [&ctx](const HttpRequest& r) {
    if (auto allowed = check_stream_scope("", r.scope_run_id); !allowed) return error_response(allowed.error());
    return event_stream_response(open_compat_stream(ctx, StreamRequest{"run_summary", "", 0}));
  });
  router.add("GET", "/api/runs/:runId/events/detail", run_stream_route(ctx, "run_detail"));
  router.add("GET", "/api/runs/:runId/events/audit", run_stream_route(ctx, "run_audit"));
  router.add("GET", "/api/runs/:runId/events/timeline", run_stream_route(ctx, "run_timeline"));
}

}  // namespace agentry::api::compat

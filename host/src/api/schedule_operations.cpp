// Schedules of runs: runs.setSchedule, runs.clearSchedule, runs.enableSchedule,
// runs.disableSchedule, and their HTTP routes (the reference's):
//   PUT    /api/runs/:runId/schedule          { at | delay | cron, timezone?, mode?, continueOnFailure? }
//   DELETE /api/runs/:runId/schedule          one-time schedules only
//   POST   /api/runs/:runId/schedule/enable
//   POST   /api/runs/:runId/schedule/disable
// Each answers { run: RunDetail } after the change, like the other run commands.

#include "api/http_routes.hpp"
#include "api/operations.hpp"
#include "api/router.hpp"
#include "core/schedule.hpp"

namespace agentry::api {
namespace json = boost::json;
using core::Result;

namespace {

using ScheduleCommand = std::function<Result<core::Run>(const std::string& run_id, const json::object& body,
                                                        const OperationRequest& request)>;

Operation schedule_command(ApiContext& ctx, bool takes_body, ScheduleCommand command) {
  return [&ctx, takes_body, command = std::move(command)](const OperationRequest& request) -> Result<OperationResult> {
    JsonBody params(request.params);
    auto id = run_id_of(params);
    if (!id) return id.failure();
    json::object body = request.params;
    body.erase("runId");
    if (!takes_body && !body.empty()) {
      const std::string key(body.begin()->key());
      return core::fail(core::ErrorCode::invalid_request, "unknown field '" + key + "'", {{"field", key}});
    }
    auto run = command(*id, body, request);
    if (!run) return run.failure();
    return run_detail_result(ctx.engine, run->id);
  };
}

struct ScheduleRoute {
  const char* method;
  const char* path;
  const char* operation;
};

// clang-format off
constexpr ScheduleRoute schedule_routes[] = {
    {"PUT",    "/api/runs/:runId/schedule",         "runs.setSchedule"},
    {"DELETE", "/api/runs/:runId/schedule",         "runs.clearSchedule"},
    {"POST",   "/api/runs/:runId/schedule/enable",  "runs.enableSchedule"},
    {"POST",   "/api/runs/:runId/schedule/disable", "runs.disableSchedule"},
};
// clang-format on

}  // namespace

void add_schedule_operations(Operations& ops, ApiContext& ctx) {
  auto& engine = ctx.engine;
  ops.add("runs.setSchedule", schedule_command(ctx, true, [&engine](auto& id, auto& body, auto& r) {
            auto spec = core::parse_schedule_request(body, engine.schedules().now_ms());
            if (!spec) return Result<core::Run>(spec.failure());
            return engine.schedules().set(id, *spec, r.actor);
          }));
  ops.add("runs.clearSchedule", schedule_command(ctx, false, [&engine](auto& id, auto&, auto& r) {
            return engine.schedules().clear(id, r.actor);
          }));
  ops.add("runs.enableSchedule", schedule_command(ctx, false, [&engine](auto& id, auto&, auto& r) {
            return engine.schedules().set_enabled(id, true, r.actor);
          }));
  ops.add("runs.disableSchedule", schedule_command(ctx, false, [&engine](auto& id, auto&, auto& r) {
            return engine.schedules().set_enabled(id, false, r.actor);
          }));
}

void add_schedule_routes(Router& router, const Operations& ops) {
  for (const auto& route : schedule_routes)
    router.add(route.method, route.path, operation_handler(ops, route.operation, false));
}

}  // namespace agentry::api

#include "api/run_scope.hpp"

#include <array>

namespace agentry::api {
namespace json = boost::json;
namespace {

// Operations on one run, named by params.runId (or target, the reference's alias).
constexpr std::array<std::string_view, 12> own_run_operations{
    "runs.get",          "runs.brief",          "tasks.list",        "attachments.list",
    "tasks.get",         "tasks.set",           "tasks.appendNotes",
    "tasks.add",         "tasks.delete",        "runs.queueResumeMessage",
    "runs.listQueuedResumeMessages", "runs.removeQueuedResumeMessage"};

core::Failure refused(const std::string& scope, std::string what) {
  return core::fail(core::ErrorCode::forbidden,
                    "this token belongs to run " + scope + " and reaches only its own tasks, queue and child runs; " +
                        std::move(what) + " needs the daemon's token",
                    {{"scopeRunId", scope}});
}

std::string string_param(const json::object& params, std::string_view key) {
  if (auto* v = params.if_contains(key); v && v->is_string()) return std::string(v->as_string());
  return {};
}

}  // namespace

core::Result<void> check_run_scope(std::string_view operation, json::object& params, const std::string& scope) {
  if (scope.empty()) return core::ok();
  if (operation == "daemon.info") return core::ok();
  for (auto allowed : own_run_operations) {
    if (operation != allowed) continue;
    std::string run = string_param(params, "runId");
    if (run.empty()) run = string_param(params, "target");
    if (run == scope) return core::ok();
    return refused(scope, "run " + (run.empty() ? std::string("(none named)") : run));
  }
  if (operation == "runs.init" || operation == "runs.start") {
    const std::string parent = string_param(params, "parentRunId");
    if (parent.empty() && !params.contains("parentRunId")) params["parentRunId"] = scope;
    else if (parent != scope) return refused(scope, "a run under another parent");
    return core::ok();
  }
  return refused(scope, "'" + std::string(operation) + "'");
}

core::Result<void> check_stream_scope(const std::string& run_id, const std::string& scope) {
  if (scope.empty() || run_id == scope) return core::ok();
  return refused(scope, run_id.empty() ? std::string("the summary stream of all runs") : "run " + run_id);
}

}  // namespace agentry::api

#include "api/operations.hpp"

#include "api/run_scope.hpp"
#include "core/ids.hpp"
#include "events/projections.hpp"

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/serialize.hpp>

#include <future>
#include <memory>

namespace agentry::api {
namespace json = boost::json;

void Operations::add(std::string name, Operation operation) { operations_[std::move(name)] = std::move(operation); }

const Operation* Operations::find(std::string_view name) const {
  auto it = operations_.find(name);
  return it == operations_.end() ? nullptr : &it->second;
}

std::vector<std::string> Operations::names() const {
  std::vector<std::string> out;
  for (const auto& [name, op] : operations_) out.push_back(name);
  return out;
}

core::Result<OperationResult> Operations::call(std::string_view name, const OperationRequest& request) const {
  const auto* op = find(name);
  if (!op) return core::fail(core::ErrorCode::not_found, "no operation named '" + std::string(name) + "'");
  try {
    if (!request.scope_run_id.empty()) {
      OperationRequest scoped = request;
      if (auto allowed = check_run_scope(name, scoped.params, request.scope_run_id); !allowed) return allowed.failure();
      scoped.actor = engine::Actor{"agent"};
      return (*op)(scoped);
    }
    return (*op)(request);
  } catch (const std::exception& e) {
    // Transports log it with a request id and keep it from remote clients (server_errors.hpp).
    return core::fail(core::ErrorCode::internal, std::string(name) + " failed: " + e.what());
  }
}

core::Result<OperationResult> finish(core::Result<OperationResult> result) {
  while (result && (result->blocking || result->after_write)) {
    if (result->blocking) {
      auto blocking = std::move(result->blocking);
      result = blocking();
      continue;
    }
    // Shared: the writer's reply may still be returning when this thread goes on.
    auto made = std::make_shared<std::promise<MakeAnswer>>();
    auto answer = made->get_future();
    auto start = std::move(result->after_write);
    start([made](MakeAnswer make) { made->set_value(std::move(make)); });
    result = answer.get()();
  }
  return result;
}

Operations make_operations(ApiContext& context) {
  Operations ops;
  add_daemon_operations(ops, context);
  add_run_operations(ops, context);
  add_dependency_operations(ops, context);
  add_task_operations(ops, context);
  add_history_operations(ops, context);
  add_usage_operations(ops, context);
  add_definition_operations(ops, context);
  add_container_operations(ops, context);
  add_schedule_operations(ops, context);
  add_attachment_operations(ops, context);
  add_workspace_operations(ops, context);
  add_project_operations(ops, context);
  add_trigger_operations(ops, context);
  return ops;
}

core::Result<JsonBody> params_of(const OperationRequest& request, std::initializer_list<std::string_view> allowed) {
  JsonBody body(request.params);
  if (auto ok = body.allow_only(allowed); !ok) return ok.failure();
  return body;
}

core::Result<std::string> run_id_of(const JsonBody& params) {
  auto id = params.required_string("runId");
  if (!id) return id.failure();
  if (!core::is_valid_run_id(*id))
    return core::fail(core::ErrorCode::invalid_request,
                      "'" + *id + "' is not a valid run id (1-64 characters of letters, digits, _ and -)",
                      {{"field", "runId"}});
  return id;
}

core::Result<std::optional<std::string>> text_param(const JsonBody& params, std::string_view key) {
  auto* v = params.object().if_contains(key);
  if (!v) return std::optional<std::string>{};
  if (v->is_string()) return std::optional<std::string>(std::string(v->as_string()));
  if (v->is_bool() || v->is_number()) return std::optional<std::string>(json::serialize(*v));
  return core::fail(core::ErrorCode::invalid_request,
                    "parameter '" + std::string(key) + "' must be a string, number or boolean",
                    {{"parameter", key}});
}

core::Result<OperationResult> run_detail_result(engine::Engine& engine, const std::string& run_id, int http_status) {
  auto view = engine.view(run_id);
  if (!view) return view.failure();
  return run_detail_result(*view, http_status);
}

OperationResult run_detail_result(const engine::RunView& view, int http_status) {
  // runId beside run: the reference's clients read it there.
  // One resource for the answer: its many small strings and objects cost a few blocks.
  auto storage = json::make_shared_resource<json::monotonic_resource>(8192);
  json::object out(storage);
  out["run"] = events::run_detail({view.run, view.tasks, view.sessions, view.attempts}, storage);
  out["runId"] = view.run.id;
  return OperationResult{std::move(out), http_status};
}

}  // namespace agentry::api

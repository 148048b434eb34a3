#include "api/compat/compat_operations.hpp"

#include "core/clock.hpp"

#include <algorithm>
#include <chrono>

namespace agentry::api::compat {
namespace json = boost::json;

Operations make_compat_operations(CompatContext& context) {
  Operations ops;
  add_compat_read_operations(ops, context);
  add_compat_mutation_operations(ops, context);
  add_compat_start_operations(ops, context);
  add_compat_attachment_operations(ops, context);
  return ops;
}

core::Result<OperationResult> call_compat(const Operations& ops, std::string_view name, const OperationRequest& request) {
  const auto* op = ops.find(name);
  if (!op) return core::fail(core::ErrorCode::not_found, "no method named '" + std::string(name) + "'");
  try {
    return (*op)(request);
  } catch (const std::exception& e) {
    return core::fail(core::ErrorCode::internal, std::string(name) + " failed: " + e.what());
  }
}

CompatFacts facts_of(const CompatContext& context) {
  CompatFacts facts;
  facts.daemon_instance_id = context.api.daemon.daemon_instance_id;
  facts.now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count();
  facts.workspace_root = context.workspace_root;
  return facts;
}

core::Result<json::object> call_native(const CompatContext& context, std::string_view name,
                                       const OperationRequest& request, json::object params) {
  OperationRequest native = request;
  native.params = std::move(params);
  auto result = finish(context.native.call(name, native));
  if (!result) return result.failure();
  if (!result->body.is_object())
    return core::fail(core::ErrorCode::internal, std::string(name) + " answered something other than an object");
  return std::move(result->body.as_object());
}

core::Result<void> only_keys(const OperationRequest& request, const std::vector<std::string_view>& keys) {
  for (const auto& [key, value] : request.params)
    if (key != "target" && std::find(keys.begin(), keys.end(), std::string_view(key)) == keys.end())
      return core::fail(core::ErrorCode::invalid_request, "unknown field '" + std::string(key) + "'",
                        {{"field", std::string(key)}});
  return core::ok();
}

core::Result<std::string> target_of(const OperationRequest& request) {
  const auto* target = request.params.if_contains("target");
  if (!target || !target->is_string() || target->as_string().empty())
    return core::fail(core::ErrorCode::invalid_request, "'target' (the run id) is required", {{"field", "target"}});
  return std::string(target->as_string());
}

}  // namespace agentry::api::compat

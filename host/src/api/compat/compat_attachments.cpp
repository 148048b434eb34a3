// agent-runner's attachments on ours: its list and remove methods (which name the run
// `runId`, unlike its other methods), its HTTP routes with its own headers, and the
// wording of the WebSocket byte streams, whose framing is the same as ours.

#include "api/compat/compat_dto.hpp"
#include "api/compat/compat_operations.hpp"
#include "api/compat/compat_routes.hpp"
#include "api/http_routes.hpp"
#include "core/attachment.hpp"

#include <memory>

namespace agentry::api::compat {
namespace json = boost::json;
using core::Result;
namespace {

constexpr const char* their_name_header = "x-agent-runner-attachment-name";
constexpr std::int64_t max_chunk_bytes = 64 * 1024;  // ours and theirs

Result<std::string> run_id_param(const OperationRequest& r) {
  const auto* id = r.params.if_contains("runId");
  if (!id || !id->is_string() || id->as_string().empty())
    return core::fail(core::ErrorCode::invalid_request, "'runId' is required", {{"field", "runId"}});
  return std::string(id->as_string());
}

/// Our answer with its attachment (if any) in their shape.
json::object with_their_attachment(json::object body) {
  if (auto* a = body.if_contains("attachment"); a && a->is_object()) *a = ref_attachment(a->as_object());
  return body;
}

/// Runs one of our attachment routes (uploads, downloads) with the request and answer
/// reworded: our routes keep the spooling, limits and checks they have.
HttpResponse through_native(const Router& native, HttpRequest request) {
  if (const std::string* name = request.header(their_name_header)) request.headers["x-agentry-attachment-name"] = *name;
  return native.dispatch(std::move(request));
}

}  // namespace

void add_compat_attachment_operations(Operations& ops, CompatContext& ctx) {
  ops.add("attachments.list", [&ctx](const OperationRequest& r) -> Result<OperationResult> {
    auto params = params_of(r, {"runId", "scope"});
    if (!params) return params.failure();
    auto id = run_id_param(r);
    if (!id) return id.failure();
    json::object ours{{"runId", *id}};
    if (const auto* scope = r.params.if_contains("scope")) ours["scope"] = *scope;
    auto native = call_native(ctx, "attachments.list", r, std::move(ours));
    if (!native) return native.failure();
    json::array out;
    for (const auto& a : native->at("attachments").as_array()) out.push_back(ref_attachment_entry(a.as_object()));
    return OperationResult{json::object{{"attachments", std::move(out)}}};
  });
  ops.add("attachments.remove", [&ctx](const OperationRequest& r) -> Result<OperationResult> {
    auto params = params_of(r, {"runId", "attachmentId"});
    if (!params) return params.failure();
    auto id = run_id_param(r);
    if (!id) return id.failure();
    auto attachment = params->required_string("attachmentId");
    if (!attachment) return attachment.failure();
    auto native = call_native(ctx, "attachments.remove", r, {{"runId", *id}, {"attachmentId", *attachment}});
    if (!native) return native.failure();
    return OperationResult{json::object{{"result", ref_attachment_remove_result(*native)}}};
  });
}

void reword_stream_params(std::string_view method, json::object& params) {
  if (method != "attachments.upload.open") return;
  if (auto* type = params.if_contains("mimeType")) {
    json::value v = *type;
    params.erase("mimeType");
    if (!v.is_null()) params["contentType"] = std::move(v);
  }
}

void reword_stream_result(std::string_view method, json::object& result) {
  if (method == "attachments.upload.open") {
    result["maxBytes"] = static_cast<std::int64_t>(core::max_attachment_bytes);
    result["maxChunkBytes"] = max_chunk_bytes;
  } else if (method == "attachments.upload.finish") {
    result = with_their_attachment(std::move(result));
  } else if (method == "attachments.download") {
    result = with_their_attachment(std::move(result));
    result["maxChunkBytes"] = max_chunk_bytes;
  }
}

void add_compat_attachment_routes(Router& router, CompatContext& ctx, const Operations& ops) {
  // Our own attachment routes, reached only through the handlers below.
  auto native = std::make_shared<Router>();
  add_attachment_routes(*native, ctx.api, ctx.native);
  router.add("GET", "/api/runs/:runId/attachments", [&ops](const HttpRequest& r) {
    json::object params{{"runId", r.params.at("runId")}};
    for (const auto& [key, value] : r.query) params[key] = value;
    auto result = call_compat(ops, "attachments.list",
                              OperationRequest{std::move(params), engine::Actor{"api"}, engine::VarOrigin::web,
                                               r.scope_run_id, true});
    return result ? json_response(200, result->body) : error_response(result.error());
  });
  router.add("DELETE", "/api/runs/:runId/attachments/:attachmentId", [&ops](const HttpRequest& r) {
    json::object params{{"runId", r.params.at("runId")}, {"attachmentId", r.params.at("attachmentId")}};
    auto result = call_compat(ops, "attachments.remove",
                              OperationRequest{std::move(params), engine::Actor{"api"}, engine::VarOrigin::web,
                                               r.scope_run_id, true});
    return result ? json_response(200, result->body) : error_response(result.error());
  });
  router.add("POST", "/api/runs/:runId/attachments", [native](const HttpRequest& r) {
    if (!r.header(their_name_header)) {
      if (!r.body_file.empty()) std::filesystem::remove(r.body_file);
      return error_response(core::ErrorCode::invalid_request,
                            "an upload needs the file's name in the x-agent-runner-attachment-name header",
                            {{"header", their_name_header}});
    }
    auto answer = through_native(*native, r);
    if (answer.status >= 300) return answer;
    auto body = json::parse(answer.body);
    answer.status = 200;  // theirs answers every success 200
    answer.body = json::serialize(with_their_attachment(std::move(body.as_object())));
    return answer;
  });
  router.add("GET", "/api/runs/:runId/attachments/:attachmentId/content", [native](const HttpRequest& r) {
    auto answer = through_native(*native, r);
    for (auto& [name, value] : answer.headers) {
      if (name == "X-Agentry-Attachment-Id") name = "x-agent-runner-attachment-id";
      if (name == "X-Agentry-Sha256") name = "x-agent-runner-sha256";
    }
    return answer;
  });
}

}  // namespace agentry::api::compat

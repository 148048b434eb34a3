// Attachments of runs: attachments.list and attachments.remove (operations, so HTTP and
// WebSocket share them), and the HTTP-only upload and download (the reference's):
//   GET    /api/runs/:runId/attachments                     ?scope=run|group (default group)
//   POST   /api/runs/:runId/attachments                     raw body; X-Agentry-Attachment-Name
//   DELETE /api/runs/:runId/attachments/:attachmentId
//   GET    /api/runs/:runId/attachments/:attachmentId/content
// Upload bodies are spooled to a file by the server, never held in memory; downloads
// are sent from the stored file. WebSocket uploads and downloads are byte streams
// (api/byte_streams.hpp).

#include "api/api_context.hpp"
#include "api/browser_guard.hpp"
#include "api/http_routes.hpp"
#include "api/operations.hpp"
#include "api/route_support.hpp"
#include "api/router.hpp"
#include "api/run_scope.hpp"
#include "events/projections.hpp"

namespace agentry::api {
namespace json = boost::json;
using core::Result;

namespace {

constexpr const char* name_header = "x-agentry-attachment-name";

Result<bool> group_scope(const JsonBody& params) {
  auto scope = params.optional_string("scope");
  if (!scope) return scope.failure();
  if (!*scope || **scope == "group") return true;
  if (**scope == "run") return false;
  return core::fail(core::ErrorCode::invalid_request, "scope must be 'run' or 'group' (got '" + **scope + "')",
                    {{"field", "scope"}});
}

/// ASCII for the plain filename parameter, the whole name RFC 5987-encoded beside it.
std::string content_disposition(const std::string& name) {
  std::string ascii, encoded;
  static constexpr char hex[] = "0123456789ABCDEF";
  for (unsigned char c : name) {
    ascii += (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') ? static_cast<char>(c) : '_';
    if (std::isalnum(c) || std::string_view("-._~").find(static_cast<char>(c)) != std::string_view::npos) {
      encoded += static_cast<char>(c);
    } else {
      encoded += '%';
      encoded += hex[c >> 4];
      encoded += hex[c & 0xf];
    }
  }
  return "attachment; filename=\"" + ascii + "\"; filename*=UTF-8''" + encoded;
}

/// The header's name: percent-decoded when it holds %XX escapes (how a browser sends
/// a non-ASCII name), else as sent.
Result<std::string> attachment_name(const HttpRequest& request) {
  const std::string* raw = request.header(name_header);
  if (!raw || raw->empty())
    return core::fail(core::ErrorCode::invalid_request,
                      "an upload needs the file's name in the X-Agentry-Attachment-Name header", {{"header", name_header}});
  if (raw->find('%') == std::string::npos) return *raw;
  bool ok = true;
  std::string decoded = percent_decode(*raw, false, ok);
  if (!ok)
    return core::fail(core::ErrorCode::invalid_request, "X-Agentry-Attachment-Name has a malformed %-escape",
                      {{"header", name_header}});
  return decoded;
}

HttpResponse upload(ApiContext& ctx, const HttpRequest& request) {
  struct Cleanup {  // whatever happens, the spool file does not outlive the request
    const std::filesystem::path& path;
    ~Cleanup() {
      std::error_code ignored;
      if (!path.empty()) std::filesystem::remove(path, ignored);
    }
  } cleanup{request.body_file};
  auto id = run_id_param(request);
  if (!id) return error_response(id.error());
  if (!request.scope_run_id.empty())
    return error_response(core::ErrorCode::forbidden, "uploading an attachment needs the daemon's token",
                          {{"scopeRunId", request.scope_run_id}});
  if (auto ok = allow_query(request, {}); !ok) return error_response(ok.error());
  auto name = attachment_name(request);
  if (!name) return error_response(name.error());
  if (auto checked = ctx.engine.attachments().check_name(*name); !checked) return error_response(checked.error());
  if (request.body_file.empty())
    return error_response(core::ErrorCode::internal, "the upload was not spooled; the server is misconfigured");
  const std::string* type = request.header("content-type");
  auto added = ctx.engine.attachments().add_spooled(*id, {*name, type ? *type : ""}, request.body_file,
                                                    engine::Actor{"api"});
  if (!added) return error_response(added.error());
  return json_response(201, json::object{{"attachment", events::attachment_json(*added)}});
}

HttpResponse download(ApiContext& ctx, const HttpRequest& request) {
  auto id = run_id_param(request);
  if (!id) return error_response(id.error());
  if (auto ok = check_stream_scope(*id, request.scope_run_id); !ok) return error_response(ok.error());
  if (auto ok = allow_query(request, {}); !ok) return error_response(ok.error());
  auto found = ctx.engine.attachments().content(*id, request.params.at("attachmentId"));
  if (!found) return error_response(found.error());
  const auto& [attachment, path] = *found;
  HttpResponse response;
  response.content_type = attachment.content_type;
  response.file = path;
  response.headers.emplace_back("Content-Disposition", content_disposition(attachment.name));
  response.headers.emplace_back("X-Agentry-Attachment-Id", attachment.id);
  response.headers.emplace_back("X-Agentry-Sha256", attachment.sha256);
  response.headers.emplace_back("Cache-Control", "private, no-store");
  return response;
}

}  // namespace

void add_attachment_operations(Operations& ops, ApiContext& ctx) {
  auto& attachments = ctx.engine.attachments();
  ops.add("attachments.list", [&attachments](const OperationRequest& request) -> Result<OperationResult> {
    auto params = params_of(request, {"runId", "scope"});
    if (!params) return params.failure();
    auto id = run_id_of(*params);
    if (!id) return id.failure();
    auto group = group_scope(*params);
    if (!group) return group.failure();
    auto list = attachments.list(*id, *group);
    if (!list) return list.failure();
    json::array out;
    for (const auto& a : *list) out.push_back(events::attachment_json(a));
    return OperationResult{json::object{{"attachments", std::move(out)}}};
  });
  ops.add("attachments.remove", [&attachments](const OperationRequest& request) -> Result<OperationResult> {
    auto params = params_of(request, {"runId", "attachmentId"});
    if (!params) return params.failure();
    auto id = run_id_of(*params);
    if (!id) return id.failure();
    auto attachment_id = params->required_string("attachmentId");
    if (!attachment_id) return attachment_id.failure();
    auto removed = attachments.remove(*id, *attachment_id, request.actor);
    if (!removed) return removed.failure();
    return OperationResult{json::object{{"removed", true}, {"attachment", events::attachment_json(*removed)}}};
  });
}

void add_attachment_routes(Router& router, ApiContext& ctx, const Operations& ops) {
  router.add("GET", "/api/runs/:runId/attachments", operation_handler(ops, "attachments.list", true));
  router.add("DELETE", "/api/runs/:runId/attachments/:attachmentId", operation_handler(ops, "attachments.remove", false));
  router.add("POST", "/api/runs/:runId/attachments", [&ctx](const HttpRequest& r) { return upload(ctx, r); });
  router.add("GET", "/api/runs/:runId/attachments/:attachmentId/content",
             [&ctx](const HttpRequest& r) { return download(ctx, r); });
}

std::optional<std::uint64_t> spooled_body_limit(std::string_view method, std::string_view path) {
  if (!is_attachment_upload(method, path)) return std::nullopt;
  return core::max_attachment_bytes;
}

}  // namespace agentry::api

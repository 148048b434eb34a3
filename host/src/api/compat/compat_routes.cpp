#include "api/compat/compat_routes.hpp"

#include "api/compat/compat_web.hpp"
#include "core/error.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <array>

namespace agentry::api::compat {
namespace json = boost::json;
namespace {

constexpr std::array all_codes = {
    core::ErrorCode::invalid_request, core::ErrorCode::unauthenticated,    core::ErrorCode::forbidden,
    core::ErrorCode::not_found,       core::ErrorCode::conflict,           core::ErrorCode::validation,
    core::ErrorCode::method_not_allowed, core::ErrorCode::payload_too_large, core::ErrorCode::unavailable,
    core::ErrorCode::internal};

std::optional<core::ErrorCode> code_named(std::string_view name) {
  for (auto code : all_codes)
    if (core::error_code_name(code) == name) return code;
  return std::nullopt;
}

struct CompatCode {
  int status;
  const char* code;
};

// agent-runner answers lifecycle refusals 409 and other known refusals 422; its router
// has no 405, so a path it knows under another method is simply not found.
CompatCode compat_code(core::ErrorCode code) {
  switch (code) {
    case core::ErrorCode::invalid_request: return {400, "INVALID_REQUEST"};
    case core::ErrorCode::unauthenticated: return {401, "UNAUTHENTICATED"};
    case core::ErrorCode::forbidden: return {403, "FORBIDDEN"};
    case core::ErrorCode::not_found: return {404, "NOT_FOUND"};
    case core::ErrorCode::method_not_allowed: return {404, "NOT_FOUND"};
    case core::ErrorCode::conflict: return {409, "CONFLICT"};
    case core::ErrorCode::validation: return {422, "INVALID_COMMAND"};
    case core::ErrorCode::payload_too_large: return {422, "COMMAND_ERROR"};
    case core::ErrorCode::unavailable: return {503, "UNAVAILABLE"};
    case core::ErrorCode::internal: return {500, "INTERNAL_ERROR"};
  }
  return {500, "INTERNAL_ERROR"};
}

HttpResponse compat_error_response(core::ErrorCode code, const std::string& message) {
  const auto mapped = compat_code(code);
  return json_response(mapped.status, json::object{{"error", json::object{{"code", mapped.code}, {"message", message}}}});
}

}  // namespace

HttpResponse compat_error_answer(HttpResponse native) {
  boost::system::error_code ec;
  auto body = json::parse(native.body, ec);
  const json::object* error = nullptr;
  if (!ec && body.is_object())
    if (const auto* e = body.as_object().if_contains("error"); e && e->is_object()) error = &e->as_object();
  if (!error) return native;
  const auto* code_text = error->if_contains("code");
  const auto* message = error->if_contains("message");
  auto code = code_text && code_text->is_string() ? code_named(code_text->as_string()) : std::nullopt;
  if (!code) return native;
  const int kept_status = native.status;
  auto answer = compat_error_response(*code, message && message->is_string() ? std::string(message->as_string()) : "");
  if (kept_status == 501) answer.status = 501;  // a transfer coding we do not decode: no code of theirs says it
  for (auto& header : native.headers)
    if (header.first != "Allow") answer.headers.push_back(std::move(header));
  return answer;
}

void add_compat_routes(Router& router, CompatContext& ctx) {
  router.add("GET", "/app-config.json", [&ctx](const HttpRequest&) { return app_config_response(ctx.web_base_path); });
  add_compat_timeline_routes(router, ctx);
  router.set_fallback([&ctx](const HttpRequest& r) {
    if (r.path == "/api" || r.path.rfind("/api/", 0) == 0)
      return compat_error_response(core::ErrorCode::not_found, "resource not found");
    if (r.method != "GET" && r.method != "HEAD")
      return compat_error_response(core::ErrorCode::not_found, "resource not found");
    return dashboard_response(ctx.web_dir, ctx.web_base_path, r.path);
  });
}

}  // namespace agentry::api::compat

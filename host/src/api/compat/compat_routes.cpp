#include "api/compat/compat_routes.hpp"

#include "api/compat/compat_errors.hpp"
#include "api/compat/compat_web.hpp"
#include "core/error.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <optional>

namespace agentry::api::compat {
namespace json = boost::json;
namespace {

std::optional<core::ErrorCode> code_named(std::string_view name) {
  for (auto code : {core::ErrorCode::invalid_request, core::ErrorCode::unauthenticated, core::ErrorCode::forbidden,
                    core::ErrorCode::not_found, core::ErrorCode::conflict, core::ErrorCode::validation,
                    core::ErrorCode::method_not_allowed, core::ErrorCode::payload_too_large,
                    core::ErrorCode::unavailable, core::ErrorCode::internal})
    if (core::error_code_name(code) == name) return code;
  return std::nullopt;
}

HttpResponse compat_error_response(const core::Error& error) {
  const auto mapped = compat_error(error);
  return json_response(mapped.status, compat_error_body(mapped));
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
  auto answer = compat_error_response(
      core::make_error(*code, message && message->is_string() ? std::string(message->as_string()) : ""));
  if (kept_status == 501) answer.status = 501;  // a transfer coding we do not decode: no code of theirs says it
  for (auto& header : native.headers)
    if (header.first != "Allow") answer.headers.push_back(std::move(header));
  return answer;
}

void add_compat_routes(Router& router, CompatContext& ctx, const Operations& ops) {
  router.add("GET", "/app-config.json", [&ctx](const HttpRequest&) { return app_config_response(ctx.web_base_path); });
  add_compat_api_routes(router, ops);
  add_compat_attachment_routes(router, ctx, ops);
  add_compat_stream_routes(router, ctx);
  router.set_fallback([&ctx](const HttpRequest& r) {
    if (r.path == "/api" || r.path.rfind("/api/", 0) == 0)
      return compat_error_response(core::make_error(core::ErrorCode::not_found, "resource not found"));
    if (r.method != "GET" && r.method != "HEAD")
      return compat_error_response(core::make_error(core::ErrorCode::not_found, "resource not found"));
    return dashboard_response(ctx.web_dir, ctx.web_base_path, r.path);
  });
}

}  // namespace agentry::api::compat

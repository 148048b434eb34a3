#include "api/server_errors.hpp"

#include "core/ids.hpp"
#include "core/log.hpp"

#include <boost/json/parse.hpp>

namespace agentry::api {
namespace {

core::Error generic(const std::string& request_id) {
  return core::make_error(core::ErrorCode::internal,
                          "internal error; the daemon's log has the details under request id " + request_id,
                          {{"requestId", request_id}});
}

}  // namespace

std::string new_request_id() { return core::new_prefixed_id("req"); }

core::Error client_error(core::Error error, const std::string& request_id, std::string_view what) {
  if (error.code != core::ErrorCode::internal) return error;
  core::log_error("request failed", {{"requestId", request_id}, {"request", std::string(what)}, {"error", error.message}});
  return generic(request_id);
}

HttpResponse client_response(HttpResponse response, const std::string& request_id, std::string_view what) {
  response.headers.emplace_back("X-Request-Id", request_id);
  if (response.status < 500 || response.status == 503) return response;
  // The message the handler wrote, for the log only.
  std::string message = response.body;
  boost::system::error_code ec;
  auto parsed = boost::json::parse(response.body, ec);
  if (!ec && parsed.is_object())
    if (auto* e = parsed.as_object().if_contains("error"); e && e->is_object())
      if (auto* m = e->as_object().if_contains("message"); m && m->is_string()) message = m->as_string();
  core::log_error("request failed", {{"requestId", request_id},
                                     {"request", std::string(what)},
                                     {"status", std::to_string(response.status)},
                                     {"error", message}});
  auto sealed = error_response(generic(request_id));
  sealed.status = response.status;
  sealed.headers = std::move(response.headers);
  return sealed;
}

}  // namespace agentry::api

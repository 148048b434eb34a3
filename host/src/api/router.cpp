#include "api/router.hpp"

#include "api/request_metrics.hpp"

#include <exception>

namespace agentry::api {
namespace {

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= path.size()) {
    auto slash = path.find('/', start);
    auto end = slash == std::string_view::npos ? path.size() : slash;
    if (end > start) out.emplace_back(path.substr(start, end - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return out;
}

bool match(const std::vector<std::string>& pattern, const std::vector<std::string>& encoded,
           std::map<std::string, std::string>& params, bool& bad_encoding) {
  if (pattern.size() != encoded.size()) return false;
  std::map<std::string, std::string> captured;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (!pattern[i].empty() && pattern[i][0] == ':') {
      bool ok = true;
      captured[pattern[i].substr(1)] = percent_decode(encoded[i], false, ok);
      if (!ok) bad_encoding = true;
    } else if (pattern[i] != encoded[i]) {
      return false;
    }
  }
  params = std::move(captured);
  return true;
}

HttpResponse call(const Handler& handler, const HttpRequest& request) {
  try {
    return handler(request);
  } catch (const std::exception& e) {
    // The transport logs it with a request id and keeps it from the client (server_errors.hpp).
    return error_response(core::ErrorCode::internal, std::string("request handler failed: ") + e.what());
  }
}

}  // namespace

void Router::add(std::string method, const std::string& pattern, Handler handler) {
  routes_.push_back(Route{std::move(method), split_path(pattern), std::move(handler), route_class_of(pattern)});
}

HttpResponse Router::dispatch(HttpRequest request) const {
  auto segments = split_path(request.path);
  std::string allowed;
  for (const auto& route : routes_) {
    std::map<std::string, std::string> params;
    bool bad_encoding = false;
    if (!match(route.segments, segments, params, bad_encoding)) continue;
    if (bad_encoding)
      return error_response(core::ErrorCode::invalid_request, "malformed percent-encoding in the request path");
    if (route.method != request.method) {
      if (allowed.find(route.method) == std::string::npos) allowed += (allowed.empty() ? "" : ", ") + route.method;
      continue;
    }
    request.params = std::move(params);
    auto response = call(route.handler, request);
    response.route_class = route.route_class;
    return response;
  }
  if (!allowed.empty()) {
    auto response = error_response(core::ErrorCode::method_not_allowed,
                                   "method " + request.method + " is not allowed on " + request.path,
                                   {{"allowed", allowed}});
    response.headers.emplace_back("Allow", allowed);
    return response;
  }
  if (fallback_) {
    auto response = call(fallback_, request);
    response.route_class = "fallback";
    return response;
  }
  return error_response(core::ErrorCode::not_found, "no route for " + request.method + " " + request.path);
}

}  // namespace agentry::api

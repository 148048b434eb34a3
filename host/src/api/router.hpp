#pragma once
// Maps (method, path pattern) to a handler. Patterns are literal segments and
// ":name" captures; captured segments are percent-decoded into HttpRequest::params.
// A path that matches a pattern under another method gets 405 with Allow.

#include "api/http_message.hpp"

#include <functional>
#include <string>
#include <vector>

namespace agentry::api {

using Handler = std::function<HttpResponse(const HttpRequest&)>;

class Router {
 public:
  void add(std::string method, const std::string& pattern, Handler handler);
  /// Answers the requests no pattern matches under any method (instead of a 404).
  void set_fallback(Handler handler) { fallback_ = std::move(handler); }
  /// Never throws: a handler's exception becomes a 500 envelope naming it, which the
  /// transport logs and replaces (server_errors.hpp).
  HttpResponse dispatch(HttpRequest request) const;

 private:
  struct Route {
    std::string method;
    std::vector<std::string> segments;
    Handler handler;
    std::string route_class;
  };
  std::vector<Route> routes_;
  Handler fallback_;
};

}  // namespace agentry::api

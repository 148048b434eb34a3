#pragma once
// The one conversion of a Beast request into the transport-neutral HttpRequest.
// Internal to the server TUs (and the request-parsing fuzz target): it includes Beast.

#include "api/http_message.hpp"

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <cctype>

namespace agentry::api {

/// Everything but the body.
inline HttpRequest header_to_request(const boost::beast::http::request_header<>& req) {
  HttpRequest r;
  r.method = std::string(req.method_string());
  r.target = std::string(req.target());
  for (const auto& field : req) {
    std::string name(field.name_string());
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    r.headers[name] = std::string(field.value());
  }
  return r;
}

inline HttpRequest to_request(const boost::beast::http::request<boost::beast::http::string_body>& req) {
  HttpRequest r = header_to_request(req);
  r.body = req.body();
  return r;
}

}  // namespace agentry::api

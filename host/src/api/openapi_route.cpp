// GET /api/openapi.json: the API's OpenAPI 3.1 document (docs/openapi.yaml, compiled in
// at build time), as JSON. Protected like the rest of /api/ (access_policy.cpp).

#include "api/http_routes.hpp"
#include "api/route_support.hpp"
#include "api/router.hpp"
#include "definitions/yaml_node.hpp"

#include <boost/json/serialize.hpp>

namespace agentry::api {

std::string openapi_yaml();  // openapi_document.cpp, generated from docs/openapi.yaml

namespace {

/// The document as JSON text, or nullopt when it does not parse (tests/browser/
/// openapi.test.mjs compares the answer with the YAML). Converted once, on first use.
const std::optional<std::string>& openapi_json() {
  static const std::optional<std::string> json = []() -> std::optional<std::string> {
    definitions::Diagnostics diag("docs/openapi.yaml");
    // No environment: the document has no ${...}, and must not take one from the daemon's.
    auto node = definitions::parse_yaml(openapi_yaml(), 1, [](std::string_view) { return std::optional<std::string>{}; },
                                        diag);
    if (!node || diag.has_errors()) return std::nullopt;
    return boost::json::serialize(definitions::to_json(*node));
  }();
  return json;
}

}  // namespace

void add_openapi_route(Router& router) {
  router.add("GET", "/api/openapi.json", [](const HttpRequest& request) {
    if (auto ok = allow_query(request, {}); !ok) return error_response(ok.error());
    const auto& json = openapi_json();
    if (!json) return error_response(core::ErrorCode::internal, "the compiled-in OpenAPI document does not parse");
    HttpResponse response;
    response.content_type = "application/json";
    response.body = *json;
    return response;
  });
}

}  // namespace agentry::api

#include "api/jsonrpc.hpp"

#include "api/json_body.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace agentry::api {
namespace json = boost::json;

std::variant<JsonRpcRequest, std::string> parse_jsonrpc_request(std::string_view text) {
  boost::system::error_code ec;
  auto value = json::parse(text, ec);
  if (ec) return jsonrpc_error(nullptr, jsonrpc_parse_error, "parse error: " + ec.message());
  if (value.is_array())
    return jsonrpc_error(nullptr, jsonrpc_invalid_request, "batch requests are not supported; send one at a time");
  if (!value.is_object()) return jsonrpc_error(nullptr, jsonrpc_invalid_request, "a request must be a JSON object");
  auto& o = value.as_object();
  json::value id = nullptr;
  JsonRpcRequest request;
  if (auto* v = o.if_contains("id")) {
    if (!v->is_string() && !v->is_int64() && !v->is_uint64() && !v->is_null())
      return jsonrpc_error(nullptr, jsonrpc_invalid_request, "id must be a string, an integer or null");
    id = *v;
    request.id = *v;
  }
  auto* version = o.if_contains("jsonrpc");
  if (!version || !version->is_string() || version->as_string() != "2.0")
    return jsonrpc_error(id, jsonrpc_invalid_request, "jsonrpc must be \"2.0\"");
  auto* method = o.if_contains("method");
  if (!method || !method->is_string() || method->as_string().empty())
    return jsonrpc_error(id, jsonrpc_invalid_request, "method must be a non-empty string");
  request.method = std::string(method->as_string());
  if (auto* params = o.if_contains("params")) {
    if (!params->is_object())
      return jsonrpc_error(id, jsonrpc_invalid_request, "params must be an object (named parameters)");
    if (auto problem = first_unstorable(*params)) return jsonrpc_error(id, unstorable_error(*problem));
    request.params = params->as_object();
  }
  for (const auto& [key, v] : o)
    if (key != "jsonrpc" && key != "id" && key != "method" && key != "params")
      return jsonrpc_error(id, jsonrpc_invalid_request, "unknown member '" + std::string(key) + "' in the request");
  return request;
}

std::string jsonrpc_result(const json::value& id, const json::value& result) {
  return json::serialize(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}});
}

std::string jsonrpc_error(const json::value& id, int code, const std::string& message, json::object data) {
  json::object error{{"code", code}, {"message", message}};
  if (!data.empty()) error["data"] = std::move(data);
  return json::serialize(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}});
}

std::string jsonrpc_error(const json::value& id, const core::Error& error) {
  const int code = error.code == core::ErrorCode::internal ? jsonrpc_runtime_error : jsonrpc_control_error;
  return jsonrpc_error(id, code, error.message,
                       {{"code", core::error_code_name(error.code)},
                        {"status", core::http_status(error.code)},
                        {"details", error.details}});
}

}  // namespace agentry::api

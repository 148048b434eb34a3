#include "cli/rpc_protocol.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace agentry::cli {
namespace json = boost::json;
using core::ErrorCode;

std::string rpc_request_text(std::int64_t id, std::string_view method, const json::object& params) {
  return json::serialize(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
}

ErrorCode error_code_from_name(std::string_view name) {
  for (auto code : {ErrorCode::invalid_request, ErrorCode::unauthenticated, ErrorCode::forbidden,
                    ErrorCode::not_found, ErrorCode::conflict,
                    ErrorCode::validation, ErrorCode::method_not_allowed, ErrorCode::payload_too_large,
                    ErrorCode::unavailable})
    if (core::error_code_name(code) == name) return code;
  return ErrorCode::internal;
}

core::Error rpc_error_to_error(const json::object& error, std::string_view method) {
  std::int64_t code = 0;
  if (auto* c = error.if_contains("code"); c && c->is_int64()) code = c->as_int64();
  std::string message = "the daemon reported an error";
  if (auto* m = error.if_contains("message"); m && m->is_string()) message = std::string(m->as_string());
  const json::object* data = nullptr;
  if (auto* d = error.if_contains("data"); d && d->is_object()) data = &d->as_object();
  json::object details;
  if (data)
    if (auto* d = data->if_contains("details"); d && d->is_object()) details = d->as_object();
  switch (code) {
    case -32003: {
      ErrorCode mapped = ErrorCode::internal;
      if (data)
        if (auto* name = data->if_contains("code"); name && name->is_string()) mapped = error_code_from_name(name->as_string());
      return core::make_error(mapped, message, std::move(details));
    }
    case -32601:
      return core::make_error(ErrorCode::internal,
                              "the daemon does not know '" + std::string(method) +
                                  "' (is it an older agentry than this CLI?): " + message);
    case -32700:
    case -32600:
      return core::make_error(ErrorCode::invalid_request, "the daemon refused the request: " + message,
                              std::move(details));
    default:
      return core::make_error(ErrorCode::internal, message, std::move(details));
  }
}

RpcIncoming parse_rpc_incoming(std::string_view text) {
  json::error_code ec;
  json::value parsed = json::parse(text, ec);
  if (ec) return RpcMalformed{"not JSON: " + ec.message()};
  if (!parsed.is_object()) return RpcMalformed{"not a JSON object"};
  auto& object = parsed.as_object();
  if (auto* method = object.if_contains("method"); method && method->is_string() && !object.contains("id")) {
    RpcNotification n;
    n.method = std::string(method->as_string());
    if (auto* params = object.if_contains("params"); params && params->is_object()) n.params = params->as_object();
    return n;
  }
  auto* id = object.if_contains("id");
  if (!id) return RpcMalformed{"neither an answer (no id) nor a notification (no method)"};
  RpcResponse r;
  if (id->is_int64()) r.id = id->as_int64();
  else if (id->is_uint64()) r.id = static_cast<std::int64_t>(id->as_uint64());
  else if (!id->is_null()) return RpcMalformed{"an answer whose id is not an integer"};
  if (auto* result = object.if_contains("result")) {
    r.ok = true;
    r.result = *result;
    return r;
  }
  if (auto* error = object.if_contains("error"); error && error->is_object()) {
    r.error_object = error->as_object();
    r.error = rpc_error_to_error(r.error_object);
    return r;
  }
  return RpcMalformed{"an answer with neither result nor error"};
}

}  // namespace agentry::cli

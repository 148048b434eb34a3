#pragma once
// JSON-RPC 2.0 framing for the WebSocket API: parsing a request, and the texts of
// results, errors and notifications. Error codes:
//   -32700 parse error          the message is not JSON
//   -32600 invalid request      not a JSON-RPC 2.0 request object
//   -32601 method not found
//   -32003 control-plane error  a core::Error the API knows (validation, conflict,
//                               not found...); data carries { code, status, details }
//   -32004 runtime error        an unexpected failure (INTERNAL)

#include "core/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace agentry::api {

inline constexpr int jsonrpc_parse_error = -32700;
inline constexpr int jsonrpc_invalid_request = -32600;
inline constexpr int jsonrpc_method_not_found = -32601;
inline constexpr int jsonrpc_invalid_params = -32602;  // MCP: arguments that break a tool's schema
inline constexpr int jsonrpc_internal_error = -32603;
inline constexpr int jsonrpc_control_error = -32003;
inline constexpr int jsonrpc_runtime_error = -32004;

struct JsonRpcRequest {
  std::optional<boost::json::value> id;  // absent: a notification, which gets no answer
  std::string method;
  boost::json::object params;
};

/// The request, or the error answer to send back instead.
std::variant<JsonRpcRequest, std::string> parse_jsonrpc_request(std::string_view text);

std::string jsonrpc_result(const boost::json::value& id, const boost::json::value& result);
std::string jsonrpc_error(const boost::json::value& id, int code, const std::string& message,
                          boost::json::object data = {});
/// -32003 or -32004 with { code, status, details } from the API error.
std::string jsonrpc_error(const boost::json::value& id, const core::Error& error);

}  // namespace agentry::api

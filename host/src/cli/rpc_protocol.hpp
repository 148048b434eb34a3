#pragma once
// The client side of the daemon's WebSocket JSON-RPC 2.0 protocol, without the socket:
// request texts, and what an incoming message is (an answer to request N, a
// notification, or garbage). The error mapping turns a JSON-RPC error back into the
// core::Error the operation returned on the daemon, so connected and embedded calls
// fail identically.

#include "core/result.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace agentry::cli {

std::string rpc_request_text(std::int64_t id, std::string_view method, const boost::json::object& params);

struct RpcResponse {
  std::int64_t id = -1;  // -1: the daemon answered a message it could not read (id null)
  bool ok = false;
  boost::json::value result;  // when ok
  core::Error error;          // otherwise
  boost::json::object error_object;  // the raw JSON-RPC error, to map again with the method name
};
struct RpcNotification {
  std::string method;
  boost::json::object params;
};
struct RpcMalformed {
  std::string why;
};
using RpcIncoming = std::variant<RpcResponse, RpcNotification, RpcMalformed>;

RpcIncoming parse_rpc_incoming(std::string_view text);

/// The API error carried by a JSON-RPC error object: -32003 keeps data.code, the
/// message and data.details; protocol errors become INVALID_REQUEST; -32004 and
/// anything unknown INTERNAL.
core::Error rpc_error_to_error(const boost::json::object& error, std::string_view method = {});

/// "NOT_FOUND" -> ErrorCode::not_found; unknown names are ErrorCode::internal.
core::ErrorCode error_code_from_name(std::string_view name);

}  // namespace agentry::cli

// Small readers of codex app-server messages, shared by the session's files.
#pragma once

#include <boost/json.hpp>
#include <string>
#include <string_view>

#include "agentry/plugin_common/json_fields.hpp"
#include "agentry/plugin_common/runtime/json_rpc.hpp"
#include "config.hpp"

namespace agentry::codex::protocol {

namespace json = boost::json;
using plugin_common::object_field;
using plugin_common::text_field;

inline constexpr const char* kClientVersion = "0.1.0";

inline json::object text_input(const std::string& text) { return json::object{{"type", "text"}, {"text", text}}; }

inline const char* transport_name(Transport t) { return t == Transport::ws ? "ws" : t == Transport::uds ? "uds" : "stdio"; }

// An answer's result as an object; an empty one for anything else.
inline const json::object& object_of(const json::value* result) {
  static const json::object kEmpty;
  return result != nullptr && result->is_object() ? result->get_object() : kEmpty;
}

// A Thread's status.type: active, idle, notLoaded, systemError.
inline std::string status_of(const json::object& thread) {
  return text_field(object_field(&thread, "status"), "type");
}

inline std::string error_text(const plugin_common::runtime::RpcError& error) {
  return error.message.empty() ? "error " + std::to_string(error.code) : error.message;
}

}  // namespace agentry::codex::protocol

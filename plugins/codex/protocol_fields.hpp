// Small readers of codex app-server messages, shared by the session's files.
#pragma once

#include <boost/json.hpp>
#include <string>
#include <string_view>

#include "agentry/plugin_common/runtime/json_rpc.hpp"
#include "config.hpp"

namespace agentry::codex::protocol {

namespace json = boost::json;

inline constexpr const char* kClientVersion = "0.1.0";

inline json::object text_input(const std::string& text) { return json::object{{"type", "text"}, {"text", text}}; }

inline const char* transport_name(Transport t) { return t == Transport::ws ? "ws" : t == Transport::uds ? "uds" : "stdio"; }

inline const json::object* object_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_object() ? &v->get_object() : nullptr;
}

inline std::string string_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

// An answer's result as an object; an empty one for anything else.
inline const json::object& object_of(const json::value* result) {
  static const json::object kEmpty;
  return result != nullptr && result->is_object() ? result->get_object() : kEmpty;
}

// A Thread's status.type: active, idle, notLoaded, systemError.
inline std::string status_of(const json::object& thread) {
  const json::object* status = object_at(thread, "status");
  return status != nullptr ? string_at(*status, "type") : std::string();
}

inline std::string error_text(const plugin_common::runtime::RpcError& error) {
  return error.message.empty() ? "error " + std::to_string(error.code) : error.message;
}

}  // namespace agentry::codex::protocol

// Lenient reads of JSON fields (model API answers, ask requests, a child's output): a
// missing or mistyped field reads as absent, so the caller decides what is required
// instead of catching exceptions. Configuration, whose mistakes must be named, is read
// with config_fields.hpp instead.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentry::plugin_common {

inline std::string text_field(const boost::json::object* o, std::string_view key) {
  const boost::json::value* v = o ? o->if_contains(key) : nullptr;
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

inline std::string text_field(const boost::json::object& o, std::string_view key) { return text_field(&o, key); }

inline std::optional<int64_t> int_field(const boost::json::object* o, std::string_view key) {
  const boost::json::value* v = o ? o->if_contains(key) : nullptr;
  return v && v->is_int64() ? std::optional<int64_t>(v->get_int64()) : std::nullopt;
}

inline const boost::json::object* object_field(const boost::json::object* o, std::string_view key) {
  const boost::json::value* v = o ? o->if_contains(key) : nullptr;
  return v ? v->if_object() : nullptr;
}

inline const boost::json::array* array_field(const boost::json::object* o, std::string_view key) {
  const boost::json::value* v = o ? o->if_contains(key) : nullptr;
  return v ? v->if_array() : nullptr;
}

}  // namespace agentry::plugin_common

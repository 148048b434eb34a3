#pragma once
// Readers for the native JSON the translators take apart. Native projections are ours,
// so a member of the wrong type is a bug upstream; the readers answer a neutral value
// (empty, 0, null) rather than throwing, and the schema checkers catch what that hides.

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace agentry::api::compat::detail {

inline const boost::json::value* member(const boost::json::object& o, std::string_view key) {
  return o.if_contains(key);
}

inline std::string string_at(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

/// The member when it is a string, else null (absent, null or another type).
inline boost::json::value string_or_null(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? boost::json::value(v->as_string()) : boost::json::value(nullptr);
}

/// As string_or_null, and an empty string is null too.
inline boost::json::value nonempty_or_null(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() && !v->as_string().empty() ? boost::json::value(v->as_string())
                                                          : boost::json::value(nullptr);
}

inline std::int64_t int_at(const boost::json::object& o, std::string_view key, std::int64_t fallback = 0) {
  const auto* v = o.if_contains(key);
  if (v && v->is_int64()) return v->as_int64();
  if (v && v->is_uint64()) return static_cast<std::int64_t>(v->as_uint64());
  if (v && v->is_double()) return static_cast<std::int64_t>(v->as_double());
  return fallback;
}

inline bool bool_at(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_bool() && v->as_bool();
}

inline const boost::json::object& object_at(const boost::json::object& o, std::string_view key) {
  static const boost::json::object empty;
  const auto* v = o.if_contains(key);
  return v && v->is_object() ? v->as_object() : empty;
}

inline const boost::json::array& array_at(const boost::json::object& o, std::string_view key) {
  static const boost::json::array empty;
  const auto* v = o.if_contains(key);
  return v && v->is_array() ? v->as_array() : empty;
}

inline bool is_null_or_absent(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v == nullptr || v->is_null();
}

template <std::size_t N>
bool one_of(const std::array<std::string_view, N>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

/// agent-runner's LOCKABLE_FIELDS: its schema refuses any other name in lockedFields.
inline constexpr std::array<std::string_view, 11> lockable_fields{
    "cwd", "backend", "model", "effort", "instructions", "message", "timeoutSec", "unrestricted",
    "maxRetries", "tasks", "schedule"};

}  // namespace agentry::api::compat::detail

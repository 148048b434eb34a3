#include "store_import/agent_runner/json_fields.hpp"

#include <cmath>

namespace agentry::store_import::agent_runner {
namespace json = boost::json;

const json::value& Fields::required(const char* key) const {
  const auto* v = o_.if_contains(key);
  if (!v) fail(key, "is missing");
  return *v;
}

std::string Fields::string(const char* key) const {
  const auto& v = required(key);
  if (!v.is_string()) fail(key, "must be a string");
  return std::string(v.as_string());
}

std::optional<std::string> Fields::optional_string(const char* key) const {
  const auto* v = o_.if_contains(key);
  if (!v || v->is_null()) return std::nullopt;
  if (!v->is_string()) fail(key, "must be a string or null");
  return std::string(v->as_string());
}

std::int64_t Fields::integer(const char* key) const {
  const auto& v = required(key);
  if (v.is_int64()) return v.as_int64();
  if (v.is_uint64() && v.as_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) return static_cast<std::int64_t>(v.as_uint64());
  if (v.is_double()) {
    // JavaScript writes every number as a double; a whole one within range is an integer.
    const double d = v.as_double();
    if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) < 9.0e15) return static_cast<std::int64_t>(d);
  }
  fail(key, "must be an integer");
}

std::optional<std::int64_t> Fields::optional_integer(const char* key) const {
  const auto* v = o_.if_contains(key);
  if (!v || v->is_null()) return std::nullopt;
  return integer(key);
}

bool Fields::boolean(const char* key) const {
  const auto& v = required(key);
  if (!v.is_bool()) fail(key, "must be true or false");
  return v.as_bool();
}

bool Fields::boolean_or(const char* key, bool fallback) const {
  if (!o_.contains(key)) return fallback;
  return boolean(key);
}

const json::array& Fields::array(const char* key) const {
  const auto& v = required(key);
  if (!v.is_array()) fail(key, "must be a list");
  return v.as_array();
}

const json::object& Fields::object(const char* key) const {
  const auto& v = required(key);
  if (!v.is_object()) fail(key, "must be an object");
  return v.as_object();
}

const json::object* Fields::optional_object(const char* key) const {
  const auto* v = o_.if_contains(key);
  if (!v || v->is_null()) return nullptr;
  if (!v->is_object()) fail(key, "must be an object or null");
  return &v->as_object();
}

std::vector<std::string> Fields::strings(const char* key) const {
  std::vector<std::string> out;
  const auto& list = array(key);
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_string()) throw FieldError(file_, where(key) + "[" + std::to_string(i) + "]", "must be a string");
    out.emplace_back(list[i].as_string());
  }
  return out;
}

Fields Fields::nested(const char* key) const { return Fields(object(key), file_, where(key)); }

Fields Fields::element(const char* key, std::size_t i) const {
  const auto& list = array(key);
  const std::string at = where(key) + "[" + std::to_string(i) + "]";
  if (i >= list.size() || !list[i].is_object()) throw FieldError(file_, at, "must be an object");
  return Fields(list[i].as_object(), file_, at);
}

}  // namespace agentry::store_import::agent_runner

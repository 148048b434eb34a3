#include "agentry/plugin_common/config_fields.hpp"

#include "agentry/plugin_common/environment.hpp"

#include <boost/json/parse.hpp>

#include <cmath>

namespace agentry::plugin_common {

namespace json = boost::json;

void config_fail(std::string message) { throw ConfigError{std::move(message)}; }

json::object parse_config_object(const std::string& text, const char* what) {
  boost::system::error_code ec;
  json::value value = json::parse(text.empty() ? "{}" : text, ec);
  if (ec) config_fail(std::string(what) + " is not valid JSON: " + ec.message());
  if (!value.is_object()) config_fail(std::string(what) + " is not a JSON object");
  return std::move(value.get_object());
}

std::string checked_string(const json::value& value, const std::string& where) {
  if (!value.is_string()) config_fail(where + " must be a string");
  std::string s(value.get_string());
  if (s.find('\0') != std::string::npos) config_fail(where + " contains a NUL character");
  return s;
}

std::string optional_string(const json::object& object, std::string_view key, const std::string& where) {
  const json::value* v = object.if_contains(key);
  return v == nullptr || v->is_null() ? std::string() : checked_string(*v, where);
}

void append_strings(const json::value* value, const std::string& where, std::vector<std::string>& out) {
  if (value == nullptr || value->is_null()) return;
  if (!value->is_array()) config_fail(where + " must be an array of strings");
  const json::array& array = value->get_array();
  for (std::size_t i = 0; i < array.size(); ++i)
    out.push_back(checked_string(array[i], where + "[" + std::to_string(i) + "]"));
}

void apply_env(const json::value* value, const std::string& where, EnvironmentBuilder& env) {
  if (value == nullptr || value->is_null()) return;
  if (!value->is_object()) config_fail(where + " must be an object of strings");
  for (const auto& field : value->get_object()) {
    const std::string key(field.key());
    if (!valid_variable_name(key)) config_fail(where + " has an invalid variable name '" + key + "'");
    env.set(key, checked_string(field.value(), where + "." + key));
  }
}

std::int64_t bounded_integer(const json::value* value, const std::string& where, std::int64_t fallback,
                             std::int64_t min, std::int64_t max) {
  if (value == nullptr || value->is_null()) return fallback;
  std::int64_t n = 0;
  if (value->is_int64())
    n = value->get_int64();
  else if (value->is_uint64() && value->get_uint64() <= static_cast<std::uint64_t>(max))
    n = static_cast<std::int64_t>(value->get_uint64());
  else if (value->is_double() && std::fabs(value->get_double()) < 1e15 &&
           value->get_double() == std::floor(value->get_double()))
    n = static_cast<std::int64_t>(value->get_double());
  else
    config_fail(where + " must be an integer");
  if (n < min || n > max)
    config_fail(where + " must be between " + std::to_string(min) + " and " + std::to_string(max));
  return n;
}

}  // namespace agentry::plugin_common

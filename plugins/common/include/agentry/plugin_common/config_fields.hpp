// Reading a backend's start configuration (config_json) field by field, with errors
// that name the field: "backendConfig.env.X must be a string". Every helper throws
// ConfigError; a plugin catches it once where it turns the start params into its own
// settings, and refuses start() with the message.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::plugin_common {

class EnvironmentBuilder;

struct ConfigError {
  std::string message;
};

[[noreturn]] void config_fail(std::string message);

/// `text` parsed as a JSON object ("" reads as {}); `what` names it in errors.
boost::json::object parse_config_object(const std::string& text, const char* what);

/// A string without NUL characters.
std::string checked_string(const boost::json::value& value, const std::string& where);

/// An optional string field of `object`: "" when absent or null.
std::string optional_string(const boost::json::object& object, std::string_view key, const std::string& where);

/// Appends the strings of an array (absent or null: nothing).
void append_strings(const boost::json::value* value, const std::string& where, std::vector<std::string>& out);

/// Sets every "NAME": "value" of an object in `env` (absent or null: nothing).
void apply_env(const boost::json::value* value, const std::string& where, EnvironmentBuilder& env);

/// An integer in [min, max]; `fallback` when absent or null. Accepts 3.0, refuses 3.5.
std::int64_t bounded_integer(const boost::json::value* value, const std::string& where, std::int64_t fallback,
                             std::int64_t min, std::int64_t max);

}  // namespace agentry::plugin_common

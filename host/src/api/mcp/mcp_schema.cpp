#include "api/mcp/mcp_schema.hpp"

#include <boost/json/serialize.hpp>

namespace agentry::api::mcp {
namespace json = boost::json;

namespace {

bool has_type(const json::value& value, std::string_view type) {
  if (type == "string") return value.is_string();
  if (type == "boolean") return value.is_bool();
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "null") return value.is_null();
  if (type == "number") return value.is_number();
  if (type == "integer") {
    if (value.is_int64() || value.is_uint64()) return true;
    // JSON has one number type: 3.0 is an integer, as JSON Schema says.
    return value.is_double() && value.as_double() == static_cast<double>(static_cast<long long>(value.as_double()));
  }
  return false;
}

std::string types_text(const json::value& types) {
  if (types.is_string()) return std::string(types.as_string());
  std::string out;
  for (const auto& t : types.as_array()) out += (out.empty() ? "" : " or ") + std::string(t.as_string());
  return out;
}

std::string article(const std::string& type) {
  return (type.front() == 'a' || type.front() == 'i' || type.front() == 'o') ? "an " + type : "a " + type;
}

std::string named(const std::string& path) { return path.empty() ? "the arguments" : "field '" + path + "'"; }

double number_of(const json::value& v) {
  return v.is_int64() ? static_cast<double>(v.as_int64())
                      : v.is_uint64() ? static_cast<double>(v.as_uint64()) : v.as_double();
}

}  // namespace

std::optional<SchemaProblem> check_against_schema(const json::value& value, const json::object& schema,
                                                  const std::string& path) {
  if (const auto* type = schema.if_contains("type")) {
    bool matches = false;
    if (type->is_string()) matches = has_type(value, type->as_string());
    else
      for (const auto& t : type->as_array()) matches = matches || has_type(value, t.as_string());
    if (!matches) return SchemaProblem{path, named(path) + " must be " + article(types_text(*type))};
  }
  if (const auto* options = schema.if_contains("enum")) {
    bool listed = false;
    std::string names;
    for (const auto& option : options->as_array()) {
      listed = listed || option == value;
      names += (names.empty() ? "" : ", ") + json::serialize(option);
    }
    if (!listed) return SchemaProblem{path, named(path) + " must be one of " + names};
  }
  if (value.is_number()) {
    if (const auto* min = schema.if_contains("minimum"); min && number_of(value) < number_of(*min))
      return SchemaProblem{path, named(path) + " must be at least " + json::serialize(*min)};
    if (const auto* max = schema.if_contains("maximum"); max && number_of(value) > number_of(*max))
      return SchemaProblem{path, named(path) + " must be at most " + json::serialize(*max)};
  }
  if (!value.is_object()) return std::nullopt;
  const auto& object = value.as_object();
  const auto* properties = schema.if_contains("properties");
  const std::string prefix = path.empty() ? "" : path + ".";
  if (const auto* required = schema.if_contains("required"))
    for (const auto& name : required->as_array())
      if (!object.contains(name.as_string())) {
        const std::string field = prefix + std::string(name.as_string());
        return SchemaProblem{field, "field '" + field + "' is required"};
      }
  const auto* extra = schema.if_contains("additionalProperties");
  const bool closed = extra && extra->is_bool() && !extra->as_bool();
  for (const auto& [key, item] : object) {
    const std::string field = prefix + std::string(key);
    const json::value* property = properties ? properties->as_object().if_contains(key) : nullptr;
    if (!property) {
      if (!closed) continue;
      // The names it takes, as the API's own "unknown field" error lists them.
      std::string known;
      if (properties)
        for (const auto& [name, unused] : properties->as_object()) known += (known.empty() ? "" : ", ") + std::string(name);
      return SchemaProblem{field, "unknown field '" + field + "'" + (known.empty() ? "" : "; known: " + known)};
    }
    if (auto problem = check_against_schema(item, property->as_object(), field)) return problem;
  }
  return std::nullopt;
}

}  // namespace agentry::api::mcp

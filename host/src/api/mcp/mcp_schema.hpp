#pragma once
// Checking a tool's arguments against its input schema before the operation runs, so a
// wrong type or an unknown argument is a JSON-RPC error naming the field (the MCP
// specification's "invalid arguments"), the same whatever the operation would have
// said. The subset of JSON Schema the tools use: type (one or a list), properties,
// required, additionalProperties: false, enum, minimum, maximum.

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>

namespace agentry::api::mcp {

struct SchemaProblem {
  std::string field;    // dotted path of the argument ("overrides.model"), "" for the whole
  std::string message;  // "field 'limit' must be an integer"
};

/// The first way `value` breaks `schema`, or nothing.
std::optional<SchemaProblem> check_against_schema(const boost::json::value& value, const boost::json::object& schema,
                                                  const std::string& path = "");

}  // namespace agentry::api::mcp

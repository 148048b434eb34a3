#pragma once
// The MCP server's tools: what an orchestrating agent may do with runs, each tool one
// operation of the API (api/operations.hpp), so it validates and answers exactly as the
// HTTP route and the WebSocket method of the same name. A tool's arguments are the
// operation's parameters, under the same names, except where `renames` says otherwise
// (start_run's `message` is the API's `overrides.message`); errors naming an operation's
// field are translated back to the tool's name for it.

#include "core/result.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentry::api::mcp {

struct McpTool {
  std::string name;         // "start_run"
  std::string title;        // "Start a run"
  std::string description;  // what it does, for the model
  std::string operation;    // "runs.start"
  boost::json::object input_schema;  // JSON Schema (draft 2020-12 subset: mcp_schema.hpp)
  bool read_only = false;
  bool destructive = false;
  bool idempotent = false;
  /// tool argument → operation parameter (a dotted path for a nested one).
  std::vector<std::pair<std::string, std::string>> renames{};
};

/// Every tool, in the order tools/list gives them.
const std::vector<McpTool>& mcp_tools();
const McpTool* find_mcp_tool(std::string_view name);

/// The operation's parameters from the tool's (already schema-checked) arguments.
/// INVALID_REQUEST naming the field when a renamed argument collides with its target.
core::Result<boost::json::object> operation_params(const McpTool& tool, const boost::json::object& arguments);
/// The tool's name for an operation's field: "overrides.message" → "message" for start_run;
/// other fields are their own names.
std::string tool_field(const McpTool& tool, std::string_view operation_field);

/// The tools/list entry: {name, title, description, inputSchema, annotations}.
boost::json::object tool_listing(const McpTool& tool);

}  // namespace agentry::api::mcp

#pragma once
// The MCP server's resources: a run's detail and its timeline, addressed as
//   agentry://runs/<runId>                      RunDetail (runs.get)
//   agentry://runs/<runId>/timeline[?after=N]   one page of the timeline (runs.timelineHistory)
// resources/list names the newest runs' detail resources; the templates say how to make
// the rest.

#include "core/result.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace agentry::api::mcp {

struct ResourceTarget {
  std::string operation;       // "runs.get" or "runs.timelineHistory"
  boost::json::object params;  // its parameters
};

/// The operation that reads `uri`; INVALID_REQUEST saying what is wrong with it.
core::Result<ResourceTarget> resource_target(std::string_view uri);
std::string run_resource_uri(std::string_view run_id);
/// The resources/templates/list entries.
boost::json::array resource_templates();

}  // namespace agentry::api::mcp

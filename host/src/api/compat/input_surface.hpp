#pragma once
// agent-runner's RunInputSurface (W35): what its dashboard's new-run form shows for an
// agent and an assignment: the run settings with their values and where they come from,
// and one input per variable a web caller may give. Made from our definitions' details
// (definitions/json.hpp), with agentry's own rule for what a start may change.

#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace agentry::api::compat {

/// `native_agent` and `native_assignment` are our definition details' inner objects
/// (`agent`, `assignment`: the fields as loaded); the assignment may be empty (none).
/// `backends`: the ones this daemon has, offered when the agent unlocks `backend`.
boost::json::object run_input_surface(const boost::json::object& native_agent,
                                      const boost::json::object& native_assignment,
                                      const std::vector<std::string>& backends = {});

}  // namespace agentry::api::compat

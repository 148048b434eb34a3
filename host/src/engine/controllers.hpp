#pragma once
// Who drives a run. A run that is running names its controller, "<kind>-<pid>-<suffix>"
// (kind "daemon" or "cli"); only that process holds the backend instance, so only it
// can interrupt the agent, and a run whose controller is gone can never finish.

#include <string>

namespace agentry::engine {

/// The pid inside a controller id, or 0 when it has none.
long controller_pid(const std::string& controller_id);

/// True when the controller's process still exists (and is not this process).
bool controller_alive_elsewhere(const std::string& controller_id);

/// How to reach that controller, for error messages: "the agentry daemon (pid 12)".
std::string describe_controller(const std::string& controller_id);

}  // namespace agentry::engine

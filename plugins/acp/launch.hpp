// One attempt of the acp backend, read from start()'s params (no I/O beyond reading this
// process's environment): which agent program to start, how, and what to ask it.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/array.hpp>

#include "agentry/plugin/cpp/params.hpp"
#include "agentry/plugin_common/launch_fields.hpp"

namespace agentry::acp {

struct Launch {
  std::vector<std::string> argv;  // launcher + command + args + extraArgs; argv[0] not yet looked up
  std::vector<std::string> env;   // the child's whole environment, "KEY=VALUE"
  std::string cwd;                // the run's workspace
  std::string prompt;             // the first turn
  std::string resume_session;     // the ACP session to load; empty: a new session
  boost::json::array mcp_servers; // session/new's mcpServers, in ACP's shape
  std::string auth_method;        // authenticate with this method id first; empty: never
  bool unrestricted = false;      // permission requests are granted without asking
  std::chrono::milliseconds interrupt_grace{5000};  // session/cancel sent -> the process group is terminated
};

using ParsedLaunch = plugin_common::Parsed<Launch>;  // why `launch` is empty, naming the field

// Reads config_json ({"backendConfig": {command, args, env, mcpServers, authMethod,
// interruptGraceMs}, "unrestricted", "extraArgs", "launcher"}), input_json ({"prompt"}),
// env and resume_token. Throws only bad_alloc.
ParsedLaunch parse_launch(const agentry::plugin::StartParams& params);

}  // namespace agentry::acp

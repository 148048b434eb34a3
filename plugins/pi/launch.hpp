// One attempt of the pi backend, read from start()'s params (no I/O beyond reading this
// process's environment): how pi is started in RPC mode, and what it is asked.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "agentry/plugin/cpp/params.hpp"
#include "agentry/plugin_common/launch_fields.hpp"

namespace agentry::pi {

struct Launch {
  std::vector<std::string> argv;  // launcher + pi + --mode rpc + provider/model/session dir + args + extraArgs
  std::vector<std::string> env;   // the child's whole environment, "KEY=VALUE"
  std::string cwd;                // the run's workspace
  std::string prompt;             // the first prompt
  std::string resume_session;     // the session file to switch to (a question: to fork); empty: a new session
  bool question = false;          // answers a question about a run: read-only tools, nothing saved
  std::chrono::milliseconds interrupt_grace{5000};  // abort sent -> the process group is stopped
};

using ParsedLaunch = plugin_common::Parsed<Launch>;  // why `launch` is empty, naming the field

// Reads config_json ({"backendConfig": {command|binary, args, env, provider, sessionDir,
// interruptGraceMs}, "model", "extraArgs", "launcher"}), input_json ({"prompt"}), env and
// resume_token. A question (ext/ask.h) gets pi's read-only tools and no session dir of its own.
ParsedLaunch parse_launch(const agentry::plugin::StartParams& params, bool question = false);

}  // namespace agentry::pi

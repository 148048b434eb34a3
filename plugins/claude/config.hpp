// One attempt of the claude backend, read from start()'s params (no I/O beyond reading
// this process's environment).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agentry/plugin/cpp/params.hpp"
#include "agentry/plugin_common/launch_fields.hpp"

namespace agentry::claude {

// The variables that keep Claude Code from phoning home (telemetry, update checks, error
// reports); set last, so no configuration can turn them off.
inline constexpr const char* kTrafficOffEnv[] = {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1",
                                                 "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1"};

struct LaunchSpec {
  std::vector<std::string> argv;  // launcher + claude + its flags + extraArgs; argv[0] not yet looked up
  std::vector<std::string> env;   // the child's whole environment, "KEY=VALUE"
  std::string cwd;                // the run's workspace
  std::string prompt;             // the first turn
  std::string session_id;         // --session-id for a fresh session, or the resumed one
  bool resuming = false;
  bool unrestricted = false;
  int64_t timeout_sec = 0;        // 0: none
  std::chrono::milliseconds interrupt_grace{5000};  // interrupt sent -> the process group is terminated
};

using ParsedLaunch = plugin_common::Parsed<LaunchSpec>;  // why `launch` is empty, naming the field

// Reads config_json ({"backendConfig": {command|binary, env, interruptGraceMs}, "model",
// "effort", "timeoutSec", "unrestricted", "extraArgs", "launcher"}), input_json
// ({"prompt"}), env and resume_token. Throws only bad_alloc.
ParsedLaunch parse_launch(const agentry::plugin::StartParams& params);

// The same for a question about the run (ext/ask.h): `claude -p --output-format json
// --no-session-persistence`, forking the run's session (--resume <token> --fork-session)
// when there is one; input_json's prompt is the question, written on stdin.
ParsedLaunch parse_ask_launch(const agentry::plugin::StartParams& params);

// A random RFC 4122 version-4 UUID, for --session-id.
std::string random_uuid();

/// The --effort claude is given for a run's effort: agent-runner's levels mapped as it
/// maps them (`off`: no flag; `minimal`: `low`; `xhigh`: `max`), anything else as written.
std::string claude_effort(const std::string& effort);

}  // namespace agentry::claude

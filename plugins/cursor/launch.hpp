// One attempt of the cursor backend, read from start()'s params (no I/O beyond reading this
// process's environment): the cursor-agent command line every turn shares, and the prompt.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "agentry/plugin/cpp/params.hpp"
#include "agentry/plugin_common/launch_fields.hpp"

namespace agentry::cursor {

struct Launch {
  std::vector<std::string> argv;  // launcher + cursor-agent + print-mode flags + extraArgs, without the turn's
  std::vector<std::string> env;   // the child's whole environment, "KEY=VALUE"
  std::string cwd;                // the run's workspace
  std::string prompt;             // the first turn
  std::string resume_chat;        // --resume=<chat id>; empty: a new chat
  std::chrono::milliseconds interrupt_grace{5000};  // SIGTERM to the group -> SIGKILL
};

using ParsedLaunch = plugin_common::Parsed<Launch>;  // why `launch` is empty, naming the field

// Reads config_json ({"backendConfig": {command|binary, env, interruptGraceMs}, "model",
// "unrestricted", "extraArgs", "launcher"}), input_json ({"prompt"}), env and resume_token.
ParsedLaunch parse_launch(const agentry::plugin::StartParams& params);

// The argv of one turn: `launch.argv`, the chat to resume (if any), then the prompt.
std::vector<std::string> turn_argv(const Launch& launch, const std::string& chat, const std::string& prompt);

}  // namespace agentry::cursor

// One attempt of the subprocess backend, parsed from start()'s params (no Asio here).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agentry/plugin/cpp/params.hpp"
#include "agentry/plugin_common/launch_fields.hpp"

namespace agentry::subprocess {

enum class OutputMode { text, jsonl };
enum class StdinMode { prompt, none, jsonl };

inline constexpr std::size_t kPromptEnvLimit = 64 * 1024;  // AGENTRY_PROMPT only below this size

struct AttemptSpec {
  std::vector<std::string> argv;  // launcher.command + command + extraArgs; argv[0] not yet looked up
  std::vector<std::string> env;   // the child's whole environment, "KEY=VALUE"
  std::string cwd;                // the run's workspace
  OutputMode mode = OutputMode::text;
  StdinMode stdin_mode = StdinMode::prompt;
  std::chrono::milliseconds interrupt_grace{5000};
  int64_t timeout_sec = 0;  // 0: none
  std::string prompt;
};

using ParsedAttempt = plugin_common::Parsed<AttemptSpec>;  // why `launch` is empty, naming the field

// Reads config_json ({"backendConfig": {...}, "timeoutSec", "extraArgs", "launcher"}),
// input_json ({"prompt"}), env, resume_token and the workspace. Throws only bad_alloc.
ParsedAttempt parse_attempt(const agentry::plugin::StartParams& params);

}  // namespace agentry::subprocess

// The parts of start()'s params every process-driving backend reads the same way: its own
// backendConfig section with unknown keys refused, the launcher in front of the program,
// the program itself (command, binary, $AGENTRY_<X>_BIN, a default), unrestricted, the
// prompt, the resume token, and the environment with the host's variables last. Every
// helper throws ConfigError naming the field (config_fields.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "agentry/plugin/cpp/params.hpp"
#include "agentry/plugin_common/config_fields.hpp"
#include "agentry/plugin_common/environment.hpp"

namespace agentry::plugin_common {

// A backend's launch settings, or why there are none (naming the field).
template <class T>
struct Parsed {
  std::optional<T> launch;
  std::string error;
};

// `build()` run with its ConfigError caught: what start() refuses with AGENTRY_ERR_INVALID_ARGUMENT.
template <class Build>
auto parse_or_error(Build build) -> Parsed<decltype(build())> {
  try {
    return {build(), {}};
  } catch (const ConfigError& e) {
    return {std::nullopt, e.message};
  }
}

struct LaunchFields {
  boost::json::object config;   // config_json
  boost::json::object backend;  // config_json.backendConfig: the agent's backendConfig.<name>
  std::string where;            // "backendConfig.<name>", for messages
};

// Parses config_json and refuses a backendConfig key not in `known`.
LaunchFields read_launch_fields(const agentry::plugin::StartParams& params, std::string_view name,
                                std::initializer_list<std::string_view> known);

// launcher.command goes in front of the program (its env into `env`).
void apply_launcher(const boost::json::object& config, std::vector<std::string>& argv, EnvironmentBuilder& env);

// The program and its first arguments: backend `command` (a string or an array), else
// `binary` (when `allow_binary`), else $`env_var`, else `fallback`.
void append_program(const LaunchFields& fields, std::vector<std::string>& argv, bool allow_binary, const char* env_var,
                    const char* fallback);

// backendConfig.<name>.interruptGraceMs (0 to 600000; `fallback` when absent).
std::chrono::milliseconds interrupt_grace(const LaunchFields& fields, int64_t fallback_ms = 5000);

// config_json.unrestricted (default false: the host always sends it).
bool unrestricted(const boost::json::object& config);

// input_json.prompt; empty is refused, saying `who` needs a message.
std::string required_prompt(const agentry::plugin::StartParams& params, std::string_view who);

// The resume token, or "" on a fresh session; a NUL (or a leading '-' when it goes on a
// command line) is refused as not being `what`.
std::string resume_token(const agentry::plugin::StartParams& params, std::string_view what, bool on_command_line);

// backendConfig.<name>.env, then the host's variables (AGENTRY_*, PATH) over it, then
// `last`: what the backend itself sets, which no configuration overrides.
std::vector<std::string> finish_environment(const LaunchFields& fields, const agentry::plugin::StartParams& params,
                                            EnvironmentBuilder env,
                                            const std::function<void(EnvironmentBuilder&)>& last = {});

}  // namespace agentry::plugin_common

#include "config.hpp"

#include <cstdio>
#include <cstdlib>
#include <random>

#include <boost/json.hpp>

#include "agentry/plugin_common/config_fields.hpp"
#include "agentry/plugin_common/environment.hpp"

namespace agentry::claude {

namespace json = boost::json;
using plugin_common::append_strings;
using plugin_common::apply_env;
using plugin_common::bounded_integer;
using plugin_common::checked_string;
using plugin_common::config_fail;
using plugin_common::ConfigError;
using plugin_common::EnvironmentBuilder;
using plugin_common::optional_string;
using plugin_common::parse_config_object;

namespace {

// The claude program and any fixed arguments: backendConfig.command (a string or an
// array), else backendConfig.binary, else $AGENTRY_CLAUDE_BIN, else "claude" on PATH.
std::vector<std::string> claude_command(const json::object& backend) {
  std::vector<std::string> command;
  if (const json::value* c = backend.if_contains("command"); c != nullptr && !c->is_null()) {
    if (c->is_string()) command.push_back(checked_string(*c, "backendConfig.command"));
    else append_strings(c, "backendConfig.command", command);
    if (command.empty() || command.front().empty()) config_fail("backendConfig.command must name the claude program");
    return command;
  }
  if (std::string binary = optional_string(backend, "binary", "backendConfig.binary"); !binary.empty())
    return {binary};
  if (const char* bin = std::getenv("AGENTRY_CLAUDE_BIN"); bin != nullptr && *bin != '\0') return {bin};
  return {"claude"};
}

LaunchSpec build(const agentry::plugin::StartParams& params, bool asking) {
  if (params.workspace_path.empty()) config_fail("the start params have no workspace path");
  const json::object config = parse_config_object(params.config_json, "config_json");
  json::object backend;
  if (const json::value* b = config.if_contains("backendConfig"); b != nullptr && !b->is_null()) {
    if (!b->is_object()) config_fail("backendConfig must be an object");
    backend = b->get_object();
  }
  for (const auto& field : backend)
    if (field.key() != "command" && field.key() != "binary" && field.key() != "env" && field.key() != "interruptGraceMs")
      config_fail("unknown key '" + std::string(field.key()) +
           "' in backendConfig (known: command, binary, env, interruptGraceMs)");

  LaunchSpec spec;
  spec.cwd = params.workspace_path;
  EnvironmentBuilder env = EnvironmentBuilder::inherited();
  if (const json::value* launcher = config.if_contains("launcher"); launcher != nullptr && !launcher->is_null()) {
    if (!launcher->is_object()) config_fail("launcher must be an object or null");
    append_strings(launcher->get_object().if_contains("command"), "launcher.command", spec.argv);
    apply_env(launcher->get_object().if_contains("env"), "launcher.env", env);
  }
  for (std::string& part : claude_command(backend)) spec.argv.push_back(std::move(part));
  if (asking) {
    // One answer as one JSON object; the side conversation is never saved, so the run's
    // session stays as it was. Tools that need permission are denied (-p as root).
    for (const char* flag : {"-p", "--output-format", "json", "--no-session-persistence"}) spec.argv.emplace_back(flag);
  } else {
    // stream-json needs --verbose; partial messages give the text deltas; the stdio
    // permission tool turns every permission prompt into a can_use_tool control request.
    for (const char* flag : {"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
                             "--include-partial-messages", "--permission-prompt-tool", "stdio"})
      spec.argv.emplace_back(flag);
  }
  if (std::string model = optional_string(config, "model", "model"); !model.empty()) {
    spec.argv.emplace_back("--model");
    spec.argv.push_back(std::move(model));
  }
  if (std::string effort = optional_string(config, "effort", "effort"); !effort.empty()) {
    spec.argv.emplace_back("--effort");
    spec.argv.push_back(std::move(effort));
  }
  const std::string& token = params.resume_token.value_or(std::string());
  if (!token.empty()) {
    if (token.find('\0') != std::string::npos || token.front() == '-') config_fail("the resume token is not a session id");
    spec.resuming = true;
    spec.session_id = token;
    spec.argv.emplace_back("--resume");
    spec.argv.push_back(spec.session_id);
    if (asking) spec.argv.emplace_back("--fork-session");  // a copy of the session answers, not the session
  } else if (!asking) {
    // Chosen here so the session id (the resume token) is known before Claude says it.
    spec.session_id = random_uuid();
    spec.argv.emplace_back("--session-id");
    spec.argv.push_back(spec.session_id);
  }
  append_strings(config.if_contains("extraArgs"), "extraArgs", spec.argv);

  if (const json::value* u = config.if_contains("unrestricted"); u != nullptr && !u->is_null()) {
    if (!u->is_bool()) config_fail("unrestricted must be a boolean");
    spec.unrestricted = u->get_bool();
  }
  spec.timeout_sec = bounded_integer(config.if_contains("timeoutSec"), "timeoutSec", 0, 0, int64_t{1} << 32);
  spec.interrupt_grace = std::chrono::milliseconds(
      bounded_integer(backend.if_contains("interruptGraceMs"), "backendConfig.interruptGraceMs", 5000, 0, 600000));

  const json::object input = parse_config_object(params.input_json, "input_json");
  spec.prompt = optional_string(input, "prompt", "input_json.prompt");
  if (spec.prompt.empty()) config_fail("input_json.prompt is empty: claude needs a message to start a turn");

  // Like the subprocess backend: the host's AGENTRY_* variables win over configuration.
  apply_env(backend.if_contains("env"), "backendConfig.env", env);
  for (const std::string& entry : params.env) env.set_entry(entry);
  for (const char* entry : kTrafficOffEnv) env.set_entry(entry);
  spec.env = env.take();
  return spec;
}

}  // namespace

std::string random_uuid() {
  std::random_device device;
  std::mt19937_64 engine((static_cast<uint64_t>(device()) << 32) ^ device());
  uint64_t hi = engine(), lo = engine();
  hi = (hi & 0xFFFFFFFFFFFF0FFFull) | 0x0000000000004000ull;  // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;  // RFC 4122 variant
  char text[37];
  std::snprintf(text, sizeof text, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF), static_cast<unsigned>(hi & 0xFFFF),
                static_cast<unsigned>(lo >> 48), static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFull));
  return text;
}

ParsedLaunch parse_launch(const agentry::plugin::StartParams& params) {
  try {
    return ParsedLaunch{build(params, false), {}};
  } catch (const ConfigError& e) {
    return ParsedLaunch{std::nullopt, e.message};
  }
}

ParsedLaunch parse_ask_launch(const agentry::plugin::StartParams& params) {
  try {
    return ParsedLaunch{build(params, true), {}};
  } catch (const ConfigError& e) {
    return ParsedLaunch{std::nullopt, e.message};
  }
}

}  // namespace agentry::claude

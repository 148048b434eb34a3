#include "launch.hpp"

#include <cstdlib>

#include <boost/json.hpp>

#include "agentry/plugin_common/config_fields.hpp"
#include "agentry/plugin_common/environment.hpp"

namespace agentry::cursor {

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

// backendConfig.cursor.command (a string or an array), else .binary, else
// $AGENTRY_CURSOR_BIN, else cursor-agent on PATH.
void cursor_command(const json::object& backend, std::vector<std::string>& argv) {
  if (const json::value* c = backend.if_contains("command"); c != nullptr && !c->is_null()) {
    const std::size_t before = argv.size();
    if (c->is_string()) argv.push_back(checked_string(*c, "backendConfig.cursor.command"));
    else append_strings(c, "backendConfig.cursor.command", argv);
    if (argv.size() == before || argv[before].empty())
      config_fail("backendConfig.cursor.command must name the cursor-agent program");
    return;
  }
  if (std::string binary = optional_string(backend, "binary", "backendConfig.cursor.binary"); !binary.empty()) {
    argv.push_back(binary);
    return;
  }
  const char* bin = std::getenv("AGENTRY_CURSOR_BIN");
  argv.emplace_back(bin != nullptr && *bin != '\0' ? bin : "cursor-agent");
}

Launch build(const agentry::plugin::StartParams& params) {
  if (params.workspace_path.empty()) config_fail("the start params have no workspace path");
  const json::object config = parse_config_object(params.config_json, "config_json");
  json::object backend;
  if (const json::value* b = config.if_contains("backendConfig"); b != nullptr && !b->is_null()) {
    if (!b->is_object()) config_fail("backendConfig.cursor must be an object");
    backend = b->get_object();
  }
  for (const auto& field : backend)
    if (field.key() != "command" && field.key() != "binary" && field.key() != "env" && field.key() != "interruptGraceMs")
      config_fail("unknown key '" + std::string(field.key()) +
                  "' in backendConfig.cursor (known: command, binary, env, interruptGraceMs)");

  Launch launch;
  launch.cwd = params.workspace_path;
  EnvironmentBuilder env = EnvironmentBuilder::inherited();
  if (const json::value* launcher = config.if_contains("launcher"); launcher != nullptr && !launcher->is_null()) {
    if (!launcher->is_object()) config_fail("launcher must be an object or null");
    append_strings(launcher->get_object().if_contains("command"), "launcher.command", launch.argv);
    apply_env(launcher->get_object().if_contains("env"), "launcher.env", env);
  }
  cursor_command(backend, launch.argv);
  // Print mode, one JSON event per line with token deltas; --trust, since a headless run
  // cannot answer the workspace-trust prompt (without it cursor-agent exits at once).
  for (const char* flag : {"-p", "--output-format", "stream-json", "--stream-partial-output", "--trust"})
    launch.argv.emplace_back(flag);
  bool unrestricted = false;
  if (const json::value* u = config.if_contains("unrestricted"); u != nullptr && !u->is_null()) {
    if (!u->is_bool()) config_fail("unrestricted must be a boolean");
    unrestricted = u->get_bool();
  }
  // Print mode has no way to ask: an unrestricted run may run commands (--force); any
  // other run has them refused by cursor-agent and reported as declined tool calls.
  if (unrestricted) launch.argv.emplace_back("--force");
  if (std::string model = optional_string(config, "model", "model"); !model.empty()) {
    launch.argv.emplace_back("--model");
    launch.argv.push_back(std::move(model));
  }
  append_strings(config.if_contains("extraArgs"), "extraArgs", launch.argv);
  launch.interrupt_grace = std::chrono::milliseconds(
      bounded_integer(backend.if_contains("interruptGraceMs"), "backendConfig.cursor.interruptGraceMs", 5000, 0, 600000));

  const json::object input = parse_config_object(params.input_json, "input_json");
  launch.prompt = optional_string(input, "prompt", "input_json.prompt");
  if (launch.prompt.empty()) config_fail("input_json.prompt is empty: cursor-agent needs a message to start a turn");
  if (params.resume_token && !params.resume_token->empty()) {
    const std::string& token = *params.resume_token;
    if (token.find('\0') != std::string::npos || token.front() == '-') config_fail("the resume token is not a chat id");
    launch.resume_chat = token;
  }
  apply_env(backend.if_contains("env"), "backendConfig.cursor.env", env);
  for (const std::string& entry : params.env) env.set_entry(entry);
  launch.env = env.take();
  return launch;
}

}  // namespace

ParsedLaunch parse_launch(const agentry::plugin::StartParams& params) {
  try {
    return ParsedLaunch{build(params), {}};
  } catch (const ConfigError& e) {
    return ParsedLaunch{std::nullopt, e.message};
  }
}

std::vector<std::string> turn_argv(const Launch& launch, const std::string& chat, const std::string& prompt) {
  std::vector<std::string> argv = launch.argv;
  // --resume's value is optional: only the '=' form keeps it from being read as the prompt.
  if (!chat.empty()) argv.push_back("--resume=" + chat);
  argv.emplace_back("--");  // a prompt beginning with '-' is still the prompt
  argv.push_back(prompt);
  return argv;
}

}  // namespace agentry::cursor

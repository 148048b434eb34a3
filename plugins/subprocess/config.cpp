#include "config.hpp"

#include <initializer_list>
#include <utility>

#include <boost/json.hpp>

#include "agentry/plugin_common/config_fields.hpp"
#include "agentry/plugin_common/environment.hpp"

namespace agentry::subprocess {

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

template <class Enum>
Enum choice(const json::value* value, const std::string& where, Enum fallback,
            std::initializer_list<std::pair<std::string_view, Enum>> options, const char* expected) {
  if (value == nullptr || value->is_null()) return fallback;
  if (value->is_string())
    for (const auto& [name, result] : options)
      if (value->get_string() == name) return result;
  config_fail(where + " must be " + expected);
}

AttemptSpec build(const agentry::plugin::StartParams& params) {
  if (params.workspace_path.empty()) config_fail("the start params have no workspace path");
  const json::object config = parse_config_object(params.config_json.empty() ? "{}" : params.config_json, "config_json");
  const json::value* backend_value = config.if_contains("backendConfig");
  if (backend_value == nullptr || !backend_value->is_object())
    config_fail("backendConfig must be an object with \"command\" (an array of strings: program and arguments)");
  const json::object& backend = backend_value->get_object();
  for (const auto& field : backend)
    if (field.key() != "command" && field.key() != "mode" && field.key() != "stdin" && field.key() != "env" &&
        field.key() != "interruptGraceMs")
      config_fail("unknown key '" + std::string(field.key()) +
           "' in backendConfig (known: command, mode, stdin, env, interruptGraceMs)");

  AttemptSpec spec;
  spec.cwd = params.workspace_path;
  std::vector<std::string> command;
  const json::value* command_value = backend.if_contains("command");
  if (command_value == nullptr) config_fail("backendConfig.command is required (an array of strings: program and arguments)");
  append_strings(command_value, "backendConfig.command", command);
  if (command.empty() || command.front().empty()) config_fail("backendConfig.command must name a program");

  EnvironmentBuilder env = EnvironmentBuilder::inherited();
  const json::value* launcher = config.if_contains("launcher");
  if (launcher != nullptr && !launcher->is_null()) {
    if (!launcher->is_object()) config_fail("launcher must be an object or null");
    append_strings(launcher->get_object().if_contains("command"), "launcher.command", spec.argv);
    apply_env(launcher->get_object().if_contains("env"), "launcher.env", env);
  }
  spec.argv.insert(spec.argv.end(), command.begin(), command.end());
  append_strings(config.if_contains("extraArgs"), "extraArgs", spec.argv);
  apply_env(backend.if_contains("env"), "backendConfig.env", env);

  spec.mode = choice(backend.if_contains("mode"), "backendConfig.mode", OutputMode::text,
                     {{"text", OutputMode::text}, {"jsonl", OutputMode::jsonl}}, "\"text\" or \"jsonl\"");
  spec.stdin_mode = choice(backend.if_contains("stdin"), "backendConfig.stdin", StdinMode::prompt,
                           {{"prompt", StdinMode::prompt}, {"none", StdinMode::none}, {"jsonl", StdinMode::jsonl}},
                           "\"prompt\", \"none\" or \"jsonl\"");
  spec.interrupt_grace = std::chrono::milliseconds(
      bounded_integer(backend.if_contains("interruptGraceMs"), "backendConfig.interruptGraceMs", 5000, 0, 600000));
  spec.timeout_sec = bounded_integer(config.if_contains("timeoutSec"), "timeoutSec", 0, 0, int64_t{1} << 32);

  const json::object input = parse_config_object(params.input_json.empty() ? "{}" : params.input_json, "input_json");
  if (const json::value* prompt = input.if_contains("prompt"); prompt != nullptr && !prompt->is_null()) {
    if (!prompt->is_string()) config_fail("input_json.prompt must be a string");
    spec.prompt = std::string(prompt->get_string());
  }
  if (spec.prompt.size() < kPromptEnvLimit && spec.prompt.find('\0') == std::string::npos)
    env.set("AGENTRY_PROMPT", spec.prompt);
  else env.unset("AGENTRY_PROMPT");
  const std::string& token = params.resume_token.value_or(std::string());
  if (!token.empty() && token.size() < kPromptEnvLimit && token.find('\0') == std::string::npos)
    env.set("AGENTRY_RESUME_TOKEN", token);
  else env.unset("AGENTRY_RESUME_TOKEN");
  for (const std::string& entry : params.env) env.set_entry(entry);
  spec.env = env.take();
  return spec;
}

}  // namespace

ParsedAttempt parse_attempt(const agentry::plugin::StartParams& params) {
  try {
    return ParsedAttempt{build(params), {}};
  } catch (const ConfigError& e) {
    return ParsedAttempt{std::nullopt, e.message};
  }
}

}  // namespace agentry::subprocess

#include "config.hpp"

#include <cmath>
#include <initializer_list>
#include <utility>

#include <boost/json.hpp>

#include "agentry/plugin_common/environment.hpp"

namespace agentry::subprocess {

namespace json = boost::json;
using plugin_common::EnvironmentBuilder;
using plugin_common::valid_variable_name;

namespace {

// Thrown inside this file only, caught by parse_attempt().
struct ConfigError {
  std::string message;
};

[[noreturn]] void fail(std::string message) { throw ConfigError{std::move(message)}; }

json::object parse_object(const std::string& text, const char* what) {
  boost::system::error_code ec;
  json::value value = json::parse(text, ec);
  if (ec) fail(std::string(what) + " is not valid JSON: " + ec.message());
  if (!value.is_object()) fail(std::string(what) + " is not a JSON object");
  return std::move(value.get_object());
}

std::string checked_string(const json::value& value, const std::string& where) {
  if (!value.is_string()) fail(where + " must be a string");
  std::string s(value.get_string());
  if (s.find('\0') != std::string::npos) fail(where + " contains a NUL character");
  return s;
}

// Appends the strings of an array (absent or null: nothing).
void append_strings(const json::value* value, const std::string& where, std::vector<std::string>& out) {
  if (value == nullptr || value->is_null()) return;
  if (!value->is_array()) fail(where + " must be an array of strings");
  const json::array& array = value->get_array();
  for (std::size_t i = 0; i < array.size(); ++i)
    out.push_back(checked_string(array[i], where + "[" + std::to_string(i) + "]"));
}

void apply_env(const json::value* value, const std::string& where, EnvironmentBuilder& env) {
  if (value == nullptr || value->is_null()) return;
  if (!value->is_object()) fail(where + " must be an object of strings");
  for (const auto& field : value->get_object()) {
    const std::string key(field.key());
    if (!valid_variable_name(key)) fail(where + " has an invalid variable name '" + key + "'");
    env.set(key, checked_string(field.value(), where + "." + key));
  }
}

// An integer in [min, max]; `fallback` when absent or null.
int64_t integer(const json::value* value, const std::string& where, int64_t fallback, int64_t min, int64_t max) {
  if (value == nullptr || value->is_null()) return fallback;
  int64_t n = 0;
  if (value->is_int64()) n = value->get_int64();
  else if (value->is_uint64() && value->get_uint64() <= static_cast<uint64_t>(max)) n = static_cast<int64_t>(value->get_uint64());
  else if (value->is_double() && std::fabs(value->get_double()) < 1e15 &&
           value->get_double() == std::floor(value->get_double()))
    n = static_cast<int64_t>(value->get_double());
  else fail(where + " must be an integer");
  if (n < min || n > max) fail(where + " must be between " + std::to_string(min) + " and " + std::to_string(max));
  return n;
}

template <class Enum>
Enum choice(const json::value* value, const std::string& where, Enum fallback,
            std::initializer_list<std::pair<std::string_view, Enum>> options, const char* expected) {
  if (value == nullptr || value->is_null()) return fallback;
  if (value->is_string())
    for (const auto& [name, result] : options)
      if (value->get_string() == name) return result;
  fail(where + " must be " + expected);
}

AttemptSpec build(const agentry::plugin::StartParams& params) {
  if (params.workspace_path.empty()) fail("the start params have no workspace path");
  const json::object config = parse_object(params.config_json.empty() ? "{}" : params.config_json, "config_json");
  const json::value* backend_value = config.if_contains("backendConfig");
  if (backend_value == nullptr || !backend_value->is_object())
    fail("backendConfig must be an object with \"command\" (an array of strings: program and arguments)");
  const json::object& backend = backend_value->get_object();
  for (const auto& field : backend)
    if (field.key() != "command" && field.key() != "mode" && field.key() != "stdin" && field.key() != "env" &&
        field.key() != "interruptGraceMs")
      fail("unknown key '" + std::string(field.key()) +
           "' in backendConfig (known: command, mode, stdin, env, interruptGraceMs)");

  AttemptSpec spec;
  spec.cwd = params.workspace_path;
  std::vector<std::string> command;
  const json::value* command_value = backend.if_contains("command");
  if (command_value == nullptr) fail("backendConfig.command is required (an array of strings: program and arguments)");
  append_strings(command_value, "backendConfig.command", command);
  if (command.empty() || command.front().empty()) fail("backendConfig.command must name a program");

  EnvironmentBuilder env = EnvironmentBuilder::inherited();
  const json::value* launcher = config.if_contains("launcher");
  if (launcher != nullptr && !launcher->is_null()) {
    if (!launcher->is_object()) fail("launcher must be an object or null");
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
      integer(backend.if_contains("interruptGraceMs"), "backendConfig.interruptGraceMs", 5000, 0, 600000));
  spec.timeout_sec = integer(config.if_contains("timeoutSec"), "timeoutSec", 0, 0, int64_t{1} << 32);

  const json::object input = parse_object(params.input_json.empty() ? "{}" : params.input_json, "input_json");
  if (const json::value* prompt = input.if_contains("prompt"); prompt != nullptr && !prompt->is_null()) {
    if (!prompt->is_string()) fail("input_json.prompt must be a string");
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

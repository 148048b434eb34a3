#include "config.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include <boost/json.hpp>

#include "agentry/plugin_common/environment.hpp"

namespace agentry::claude {

namespace json = boost::json;
using agentry::plugin_common::EnvironmentBuilder;

namespace {

struct ConfigError {
  std::string message;
};

[[noreturn]] void fail(std::string message) { throw ConfigError{std::move(message)}; }

json::object parse_object(const std::string& text, const char* what) {
  boost::system::error_code ec;
  json::value value = json::parse(text.empty() ? "{}" : text, ec);
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

// An optional string field; "" when absent or null.
std::string optional_string(const json::object& o, std::string_view key, const std::string& where) {
  const json::value* v = o.if_contains(key);
  return v == nullptr || v->is_null() ? std::string() : checked_string(*v, where);
}

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
    if (!agentry::plugin_common::valid_variable_name(key)) fail(where + " has an invalid variable name '" + key + "'");
    env.set(key, checked_string(field.value(), where + "." + key));
  }
}

int64_t integer(const json::value* value, const std::string& where, int64_t fallback, int64_t min, int64_t max) {
  if (value == nullptr || value->is_null()) return fallback;
  int64_t n = 0;
  if (value->is_int64()) n = value->get_int64();
  else if (value->is_uint64() && value->get_uint64() <= static_cast<uint64_t>(max)) n = static_cast<int64_t>(value->get_uint64());
  else if (value->is_double() && std::fabs(value->get_double()) < 1e15 && value->get_double() == std::floor(value->get_double()))
    n = static_cast<int64_t>(value->get_double());
  else fail(where + " must be an integer");
  if (n < min || n > max) fail(where + " must be between " + std::to_string(min) + " and " + std::to_string(max));
  return n;
}

// The claude program and any fixed arguments: backendConfig.command (a string or an
// array), else backendConfig.binary, else $AGENTRY_CLAUDE_BIN, else "claude" on PATH.
std::vector<std::string> claude_command(const json::object& backend) {
  std::vector<std::string> command;
  if (const json::value* c = backend.if_contains("command"); c != nullptr && !c->is_null()) {
    if (c->is_string()) command.push_back(checked_string(*c, "backendConfig.command"));
    else append_strings(c, "backendConfig.command", command);
    if (command.empty() || command.front().empty()) fail("backendConfig.command must name the claude program");
    return command;
  }
  if (std::string binary = optional_string(backend, "binary", "backendConfig.binary"); !binary.empty())
    return {binary};
  if (const char* bin = std::getenv("AGENTRY_CLAUDE_BIN"); bin != nullptr && *bin != '\0') return {bin};
  return {"claude"};
}

LaunchSpec build(const agentry::plugin::StartParams& params) {
  if (params.workspace_path.empty()) fail("the start params have no workspace path");
  const json::object config = parse_object(params.config_json, "config_json");
  json::object backend;
  if (const json::value* b = config.if_contains("backendConfig"); b != nullptr && !b->is_null()) {
    if (!b->is_object()) fail("backendConfig must be an object");
    backend = b->get_object();
  }
  for (const auto& field : backend)
    if (field.key() != "command" && field.key() != "binary" && field.key() != "env" && field.key() != "interruptGraceMs")
      fail("unknown key '" + std::string(field.key()) +
           "' in backendConfig (known: command, binary, env, interruptGraceMs)");

  LaunchSpec spec;
  spec.cwd = params.workspace_path;
  EnvironmentBuilder env = EnvironmentBuilder::inherited();
  if (const json::value* launcher = config.if_contains("launcher"); launcher != nullptr && !launcher->is_null()) {
    if (!launcher->is_object()) fail("launcher must be an object or null");
    append_strings(launcher->get_object().if_contains("command"), "launcher.command", spec.argv);
    apply_env(launcher->get_object().if_contains("env"), "launcher.env", env);
  }
  for (std::string& part : claude_command(backend)) spec.argv.push_back(std::move(part));
  // stream-json needs --verbose; partial messages give the text deltas; the stdio
  // permission tool turns every permission prompt into a can_use_tool control request.
  for (const char* flag : {"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
                           "--include-partial-messages", "--permission-prompt-tool", "stdio"})
    spec.argv.emplace_back(flag);
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
    if (token.find('\0') != std::string::npos || token.front() == '-') fail("the resume token is not a session id");
    spec.resuming = true;
    spec.session_id = token;
    spec.argv.emplace_back("--resume");
  } else {
    // Chosen here so the session id (the resume token) is known before Claude says it.
    spec.session_id = random_uuid();
    spec.argv.emplace_back("--session-id");
  }
  spec.argv.push_back(spec.session_id);
  append_strings(config.if_contains("extraArgs"), "extraArgs", spec.argv);

  if (const json::value* u = config.if_contains("unrestricted"); u != nullptr && !u->is_null()) {
    if (!u->is_bool()) fail("unrestricted must be a boolean");
    spec.unrestricted = u->get_bool();
  }
  spec.timeout_sec = integer(config.if_contains("timeoutSec"), "timeoutSec", 0, 0, int64_t{1} << 32);
  spec.interrupt_grace = std::chrono::milliseconds(
      integer(backend.if_contains("interruptGraceMs"), "backendConfig.interruptGraceMs", 5000, 0, 600000));

  const json::object input = parse_object(params.input_json, "input_json");
  spec.prompt = optional_string(input, "prompt", "input_json.prompt");
  if (spec.prompt.empty()) fail("input_json.prompt is empty: claude needs a message to start a turn");

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
    return ParsedLaunch{build(params), {}};
  } catch (const ConfigError& e) {
    return ParsedLaunch{std::nullopt, e.message};
  }
}

}  // namespace agentry::claude

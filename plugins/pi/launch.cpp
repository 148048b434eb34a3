#include "launch.hpp"

#include <cstdlib>

#include <boost/json.hpp>

#include "agentry/plugin_common/config_fields.hpp"
#include "agentry/plugin_common/environment.hpp"

namespace agentry::pi {

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

constexpr std::string_view kKnownKeys[] = {"command", "binary", "args", "env", "provider", "sessionDir",
                                           "interruptGraceMs"};

Launch build(const agentry::plugin::StartParams& params) {
  if (params.workspace_path.empty()) config_fail("the start params have no workspace path");
  const json::object config = parse_config_object(params.config_json, "config_json");
  json::object backend;
  if (const json::value* b = config.if_contains("backendConfig"); b != nullptr && !b->is_null()) {
    if (!b->is_object()) config_fail("backendConfig.pi must be an object");
    backend = b->get_object();
  }
  for (const auto& field : backend) {
    bool known = false;
    for (std::string_view key : kKnownKeys) known = known || field.key() == key;
    if (!known)
      config_fail("unknown key '" + std::string(field.key()) +
                  "' in backendConfig.pi (known: command, binary, args, env, provider, sessionDir, interruptGraceMs)");
  }

  Launch launch;
  launch.cwd = params.workspace_path;
  EnvironmentBuilder env = EnvironmentBuilder::inherited();
  if (const json::value* launcher = config.if_contains("launcher"); launcher != nullptr && !launcher->is_null()) {
    if (!launcher->is_object()) config_fail("launcher must be an object or null");
    append_strings(launcher->get_object().if_contains("command"), "launcher.command", launch.argv);
    apply_env(launcher->get_object().if_contains("env"), "launcher.env", env);
  }
  // The program: backendConfig.pi.command (a string or an array), .binary, $AGENTRY_PI_BIN, pi.
  const std::size_t program_at = launch.argv.size();
  if (const json::value* c = backend.if_contains("command"); c != nullptr && !c->is_null()) {
    if (c->is_string()) launch.argv.push_back(checked_string(*c, "backendConfig.pi.command"));
    else append_strings(c, "backendConfig.pi.command", launch.argv);
  } else if (std::string binary = optional_string(backend, "binary", "backendConfig.pi.binary"); !binary.empty()) {
    launch.argv.push_back(binary);
  } else {
    const char* bin = std::getenv("AGENTRY_PI_BIN");
    launch.argv.emplace_back(bin != nullptr && *bin != '\0' ? bin : "pi");
  }
  if (launch.argv.size() == program_at || launch.argv[program_at].empty())
    config_fail("backendConfig.pi.command must name the pi program");
  launch.argv.emplace_back("--mode");
  launch.argv.emplace_back("rpc");
  if (std::string provider = optional_string(backend, "provider", "backendConfig.pi.provider"); !provider.empty()) {
    launch.argv.emplace_back("--provider");
    launch.argv.push_back(std::move(provider));
  }
  if (std::string model = optional_string(config, "model", "model"); !model.empty()) {
    launch.argv.emplace_back("--model");
    launch.argv.push_back(std::move(model));
  }
  if (std::string dir = optional_string(backend, "sessionDir", "backendConfig.pi.sessionDir"); !dir.empty()) {
    if (dir.front() != '/') config_fail("backendConfig.pi.sessionDir must be an absolute path");
    launch.argv.emplace_back("--session-dir");
    launch.argv.push_back(std::move(dir));
  }
  append_strings(backend.if_contains("args"), "backendConfig.pi.args", launch.argv);
  append_strings(config.if_contains("extraArgs"), "extraArgs", launch.argv);
  launch.interrupt_grace = std::chrono::milliseconds(
      bounded_integer(backend.if_contains("interruptGraceMs"), "backendConfig.pi.interruptGraceMs", 5000, 0, 600000));

  const json::object input = parse_config_object(params.input_json, "input_json");
  launch.prompt = optional_string(input, "prompt", "input_json.prompt");
  if (launch.prompt.empty()) config_fail("input_json.prompt is empty: pi needs a message to start a turn");
  if (params.resume_token && !params.resume_token->empty()) {
    if (params.resume_token->find('\0') != std::string::npos) config_fail("the resume token is not a session file");
    launch.resume_session = *params.resume_token;
  }
  // pi checks for updates and reports installs unless told it is offline.
  env.set("PI_OFFLINE", "1");
  apply_env(backend.if_contains("env"), "backendConfig.pi.env", env);
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

}  // namespace agentry::pi

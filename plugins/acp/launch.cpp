#include "launch.hpp"

#include <boost/json.hpp>

#include "agentry/plugin_common/config_fields.hpp"
#include "agentry/plugin_common/environment.hpp"

namespace agentry::acp {

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

constexpr std::string_view kKnownKeys[] = {"command", "args", "env", "mcpServers", "authMethod", "interruptGraceMs"};

// backendConfig.acp.mcpServers: [{name, command, args?, env?: {NAME: value}}], handed to
// the agent in ACP's own shape (env as [{name, value}]).
json::array mcp_servers(const json::value* value) {
  json::array out;
  if (value == nullptr || value->is_null()) return out;
  if (!value->is_array()) config_fail("backendConfig.acp.mcpServers must be an array");
  std::size_t index = 0;
  for (const json::value& entry : value->get_array()) {
    const std::string where = "backendConfig.acp.mcpServers[" + std::to_string(index++) + "]";
    if (!entry.is_object()) config_fail(where + " must be an object");
    const json::object& server = entry.get_object();
    for (const auto& field : server)
      if (field.key() != "name" && field.key() != "command" && field.key() != "args" && field.key() != "env")
        config_fail("unknown key '" + std::string(field.key()) + "' in " + where + " (known: name, command, args, env)");
    const std::string name = optional_string(server, "name", where + ".name");
    const std::string command = optional_string(server, "command", where + ".command");
    if (name.empty()) config_fail(where + ".name must be a non-empty string");
    if (command.empty()) config_fail(where + ".command must be a non-empty string");
    std::vector<std::string> args;
    append_strings(server.if_contains("args"), where + ".args", args);
    json::array env;
    if (const json::value* e = server.if_contains("env"); e != nullptr && !e->is_null()) {
      if (!e->is_object()) config_fail(where + ".env must be an object of strings");
      for (const auto& variable : e->get_object()) {
        if (!plugin_common::valid_variable_name(variable.key()))
          config_fail(where + ".env has an invalid variable name");
        env.push_back(json::object{{"name", variable.key()},
                                   {"value", checked_string(variable.value(), where + ".env." + std::string(variable.key()))}});
      }
    }
    json::array arg_values;
    for (std::string& a : args) arg_values.emplace_back(a);
    out.push_back(json::object{{"name", name}, {"command", command}, {"args", std::move(arg_values)}, {"env", std::move(env)}});
  }
  return out;
}

Launch build(const agentry::plugin::StartParams& params) {
  if (params.workspace_path.empty()) config_fail("the start params have no workspace path");
  const json::object config = parse_config_object(params.config_json, "config_json");
  json::object backend;
  if (const json::value* b = config.if_contains("backendConfig"); b != nullptr && !b->is_null()) {
    if (!b->is_object()) config_fail("backendConfig.acp must be an object");
    backend = b->get_object();
  }
  for (const auto& field : backend) {
    bool known = false;
    for (std::string_view key : kKnownKeys) known = known || field.key() == key;
    if (!known)
      config_fail("unknown key '" + std::string(field.key()) +
                  "' in backendConfig.acp (known: command, args, env, mcpServers, authMethod, interruptGraceMs)");
  }

  Launch launch;
  launch.cwd = params.workspace_path;
  EnvironmentBuilder env = EnvironmentBuilder::inherited();
  if (const json::value* launcher = config.if_contains("launcher"); launcher != nullptr && !launcher->is_null()) {
    if (!launcher->is_object()) config_fail("launcher must be an object or null");
    append_strings(launcher->get_object().if_contains("command"), "launcher.command", launch.argv);
    apply_env(launcher->get_object().if_contains("env"), "launcher.env", env);
  }
  // The agent program: a string, or an array whose first element is the program.
  const std::size_t program_at = launch.argv.size();
  if (const json::value* c = backend.if_contains("command"); c != nullptr && !c->is_null()) {
    if (c->is_string()) launch.argv.push_back(checked_string(*c, "backendConfig.acp.command"));
    else append_strings(c, "backendConfig.acp.command", launch.argv);
  }
  if (launch.argv.size() == program_at || launch.argv[program_at].empty())
    config_fail("backendConfig.acp.command must name the agent's program (for example gemini, with args "
                "[--experimental-acp]; see docs/backends/acp.md)");
  append_strings(backend.if_contains("args"), "backendConfig.acp.args", launch.argv);
  append_strings(config.if_contains("extraArgs"), "extraArgs", launch.argv);

  launch.mcp_servers = mcp_servers(backend.if_contains("mcpServers"));
  launch.auth_method = optional_string(backend, "authMethod", "backendConfig.acp.authMethod");
  if (const json::value* u = config.if_contains("unrestricted"); u != nullptr && !u->is_null()) {
    if (!u->is_bool()) config_fail("unrestricted must be a boolean");
    launch.unrestricted = u->get_bool();
  }
  launch.interrupt_grace = std::chrono::milliseconds(
      bounded_integer(backend.if_contains("interruptGraceMs"), "backendConfig.acp.interruptGraceMs", 5000, 0, 600000));

  const json::object input = parse_config_object(params.input_json, "input_json");
  launch.prompt = optional_string(input, "prompt", "input_json.prompt");
  if (launch.prompt.empty()) config_fail("input_json.prompt is empty: an ACP agent needs a message to start a turn");
  if (params.resume_token && !params.resume_token->empty()) {
    if (params.resume_token->find('\0') != std::string::npos) config_fail("the resume token is not a session id");
    launch.resume_session = *params.resume_token;
  }

  // Like every backend: the host's AGENTRY_* variables (and its PATH) win over configuration.
  apply_env(backend.if_contains("env"), "backendConfig.acp.env", env);
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

}  // namespace agentry::acp

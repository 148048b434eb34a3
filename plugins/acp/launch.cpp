#include "launch.hpp"

#include <boost/json.hpp>

#include "agentry/plugin_common/config_fields.hpp"
#include "agentry/plugin_common/environment.hpp"
#include "agentry/plugin_common/launch_fields.hpp"

namespace agentry::acp {

namespace json = boost::json;
using plugin_common::append_strings;
using plugin_common::checked_string;
using plugin_common::config_fail;
using plugin_common::EnvironmentBuilder;
using plugin_common::optional_string;

namespace {

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
  const plugin_common::LaunchFields fields = plugin_common::read_launch_fields(
      params, "acp", {"command", "args", "env", "mcpServers", "authMethod", "interruptGraceMs"});
  Launch launch;
  launch.cwd = params.workspace_path;
  EnvironmentBuilder env = EnvironmentBuilder::inherited();
  plugin_common::apply_launcher(fields.config, launch.argv, env);
  // No default program: there is no one ACP agent (docs/backends/acp.md lists some).
  if (const json::value* c = fields.backend.if_contains("command"); c == nullptr || c->is_null())
    config_fail("backendConfig.acp.command must name the agent's program (for example [gemini, --acp]; see "
                "docs/backends/acp.md)");
  plugin_common::append_program(fields, launch.argv, false, nullptr, nullptr);
  append_strings(fields.backend.if_contains("args"), "backendConfig.acp.args", launch.argv);
  append_strings(fields.config.if_contains("extraArgs"), "extraArgs", launch.argv);

  launch.mcp_servers = mcp_servers(fields.backend.if_contains("mcpServers"));
  launch.auth_method = optional_string(fields.backend, "authMethod", "backendConfig.acp.authMethod");
  launch.unrestricted = plugin_common::unrestricted(fields.config);
  launch.interrupt_grace = plugin_common::interrupt_grace(fields);
  launch.prompt = plugin_common::required_prompt(params, "an ACP agent");
  launch.resume_session = plugin_common::resume_token(params, "a session id", false);
  // Like every backend: the host's AGENTRY_* variables (and its PATH) win over configuration.
  launch.env = plugin_common::finish_environment(fields, params, std::move(env));
  return launch;
}

}  // namespace

ParsedLaunch parse_launch(const agentry::plugin::StartParams& params) {
  return plugin_common::parse_or_error([&] { return build(params); });
}

}  // namespace agentry::acp

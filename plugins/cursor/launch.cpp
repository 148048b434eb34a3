#include "launch.hpp"

#include <boost/json.hpp>

#include "agentry/plugin_common/config_fields.hpp"
#include "agentry/plugin_common/environment.hpp"
#include "agentry/plugin_common/launch_fields.hpp"

namespace agentry::cursor {

namespace json = boost::json;
using plugin_common::append_strings;
using plugin_common::EnvironmentBuilder;
using plugin_common::optional_string;

namespace {

Launch build(const agentry::plugin::StartParams& params) {
  const plugin_common::LaunchFields fields =
      plugin_common::read_launch_fields(params, "cursor", {"command", "binary", "env", "interruptGraceMs"});
  Launch launch;
  launch.cwd = params.workspace_path;
  EnvironmentBuilder env = EnvironmentBuilder::inherited();
  plugin_common::apply_launcher(fields.config, launch.argv, env);
  plugin_common::append_program(fields, launch.argv, true, "AGENTRY_CURSOR_BIN", "cursor-agent");
  // Print mode, one JSON event per line with token deltas; --trust, since a headless run
  // cannot answer the workspace-trust prompt (without it cursor-agent exits at once).
  for (const char* flag : {"-p", "--output-format", "stream-json", "--stream-partial-output", "--trust"})
    launch.argv.emplace_back(flag);
  // Print mode has no way to ask: an unrestricted run may run commands (--force); any
  // other run has them refused by cursor-agent and reported as declined tool calls.
  if (plugin_common::unrestricted(fields.config)) launch.argv.emplace_back("--force");
  if (std::string model = optional_string(fields.config, "model", "model"); !model.empty()) {
    launch.argv.emplace_back("--model");
    launch.argv.push_back(std::move(model));
  }
  append_strings(fields.config.if_contains("extraArgs"), "extraArgs", launch.argv);
  launch.interrupt_grace = plugin_common::interrupt_grace(fields);
  launch.prompt = plugin_common::required_prompt(params, "cursor-agent");
  launch.resume_chat = plugin_common::resume_token(params, "a chat id", true);
  launch.env = plugin_common::finish_environment(fields, params, std::move(env));
  return launch;
}

}  // namespace

ParsedLaunch parse_launch(const agentry::plugin::StartParams& params) {
  return plugin_common::parse_or_error([&] { return build(params); });
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

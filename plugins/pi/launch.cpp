#include "launch.hpp"

#include <boost/json.hpp>

#include "agentry/plugin_common/config_fields.hpp"
#include "agentry/plugin_common/environment.hpp"
#include "agentry/plugin_common/launch_fields.hpp"

namespace agentry::pi {

namespace json = boost::json;
using plugin_common::append_strings;
using plugin_common::config_fail;
using plugin_common::EnvironmentBuilder;
using plugin_common::optional_string;

namespace {

Launch build(const agentry::plugin::StartParams& params, bool question) {
  const plugin_common::LaunchFields fields = plugin_common::read_launch_fields(
      params, "pi", {"command", "binary", "args", "env", "provider", "sessionDir", "interruptGraceMs"});
  Launch launch;
  launch.question = question;
  launch.cwd = params.workspace_path;
  EnvironmentBuilder env = EnvironmentBuilder::inherited();
  plugin_common::apply_launcher(fields.config, launch.argv, env);
  plugin_common::append_program(fields, launch.argv, true, "AGENTRY_PI_BIN", "pi");
  launch.argv.emplace_back("--mode");
  launch.argv.emplace_back("rpc");
  if (std::string provider = optional_string(fields.backend, "provider", "backendConfig.pi.provider"); !provider.empty()) {
    launch.argv.emplace_back("--provider");
    launch.argv.push_back(std::move(provider));
  }
  if (std::string model = optional_string(fields.config, "model", "model"); !model.empty()) {
    launch.argv.emplace_back("--model");
    launch.argv.push_back(std::move(model));
  }
  if (std::string dir = optional_string(fields.backend, "sessionDir", "backendConfig.pi.sessionDir");
      !dir.empty() && !question) {
    if (dir.front() != '/') config_fail("backendConfig.pi.sessionDir must be an absolute path");
    launch.argv.emplace_back("--session-dir");
    launch.argv.push_back(std::move(dir));
  }
  append_strings(fields.backend.if_contains("args"), "backendConfig.pi.args", launch.argv);
  append_strings(fields.config.if_contains("extraArgs"), "extraArgs", launch.argv);
  if (question) {  // last, so the run's own --tools does not widen it
    launch.argv.emplace_back("--tools");
    launch.argv.emplace_back("read,grep,find,ls");
  }
  launch.interrupt_grace = plugin_common::interrupt_grace(fields);
  launch.prompt = plugin_common::required_prompt(params, "pi");
  launch.resume_session = plugin_common::resume_token(params, "a session file", false);
  // pi checks for updates and reports installs unless told it is offline.
  env.set("PI_OFFLINE", "1");
  launch.env = plugin_common::finish_environment(fields, params, std::move(env));
  return launch;
}

}  // namespace

ParsedLaunch parse_launch(const agentry::plugin::StartParams& params, bool question) {
  return plugin_common::parse_or_error([&] { return build(params, question); });
}

}  // namespace agentry::pi

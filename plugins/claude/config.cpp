#include "config.hpp"

#include <cstdio>
#include <random>

#include <boost/json.hpp>

#include "agentry/plugin_common/config_fields.hpp"
#include "agentry/plugin_common/environment.hpp"
#include "agentry/plugin_common/launch_fields.hpp"

namespace agentry::claude {

namespace json = boost::json;
using plugin_common::append_strings;
using plugin_common::bounded_integer;
using plugin_common::EnvironmentBuilder;
using plugin_common::optional_string;

namespace {

LaunchSpec build(const agentry::plugin::StartParams& params, bool asking) {
  const plugin_common::LaunchFields fields =
      plugin_common::read_launch_fields(params, "claude", {"command", "binary", "env", "interruptGraceMs"});
  LaunchSpec spec;
  spec.cwd = params.workspace_path;
  EnvironmentBuilder env = EnvironmentBuilder::inherited();
  plugin_common::apply_launcher(fields.config, spec.argv, env);
  plugin_common::append_program(fields, spec.argv, true, "AGENTRY_CLAUDE_BIN", "claude");
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
  if (std::string model = optional_string(fields.config, "model", "model"); !model.empty()) {
    spec.argv.emplace_back("--model");
    spec.argv.push_back(std::move(model));
  }
  if (std::string effort = claude_effort(optional_string(fields.config, "effort", "effort")); !effort.empty()) {
    spec.argv.emplace_back("--effort");
    spec.argv.push_back(std::move(effort));
  }
  if (std::string token = plugin_common::resume_token(params, "a session id", true); !token.empty()) {
    spec.resuming = true;
    spec.session_id = std::move(token);
    spec.argv.emplace_back("--resume");
    spec.argv.push_back(spec.session_id);
    if (asking) spec.argv.emplace_back("--fork-session");  // a copy of the session answers, not the session
  } else if (!asking) {
    // Chosen here so the session id (the resume token) is known before Claude says it.
    spec.session_id = random_uuid();
    spec.argv.emplace_back("--session-id");
    spec.argv.push_back(spec.session_id);
  }
  append_strings(fields.config.if_contains("extraArgs"), "extraArgs", spec.argv);

  spec.unrestricted = plugin_common::unrestricted(fields.config);
  spec.timeout_sec = bounded_integer(fields.config.if_contains("timeoutSec"), "timeoutSec", 0, 0, int64_t{1} << 32);
  spec.interrupt_grace = plugin_common::interrupt_grace(fields);
  spec.prompt = plugin_common::required_prompt(params, "claude");
  spec.env = plugin_common::finish_environment(fields, params, std::move(env), [](EnvironmentBuilder& forced) {
    for (const char* entry : kTrafficOffEnv) forced.set_entry(entry);
  });
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
  return plugin_common::parse_or_error([&] { return build(params, false); });
}

ParsedLaunch parse_ask_launch(const agentry::plugin::StartParams& params) {
  return plugin_common::parse_or_error([&] { return build(params, true); });
}

std::string claude_effort(const std::string& effort) {
  if (effort == "off") return {};
  if (effort == "minimal") return "low";
  if (effort == "xhigh") return "max";
  return effort;
}

}  // namespace agentry::claude

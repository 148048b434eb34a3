#include "config.hpp"

#include <initializer_list>
#include <utility>

#include <boost/json.hpp>

#include "agentry/plugin_common/config_fields.hpp"
#include "agentry/plugin_common/environment.hpp"
#include "agentry/plugin_common/launch_fields.hpp"

namespace agentry::subprocess {

namespace json = boost::json;
using plugin_common::append_strings;
using plugin_common::bounded_integer;
using plugin_common::config_fail;
using plugin_common::EnvironmentBuilder;
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
  const plugin_common::LaunchFields fields = plugin_common::read_launch_fields(
      params, "subprocess", {"command", "mode", "stdin", "env", "interruptGraceMs"});
  const json::object& backend = fields.backend;
  AttemptSpec spec;
  spec.cwd = params.workspace_path;
  EnvironmentBuilder env = EnvironmentBuilder::inherited();
  plugin_common::apply_launcher(fields.config, spec.argv, env);
  // No default program: the agent's own command is the whole point of this backend.
  plugin_common::append_program(fields, spec.argv, false, nullptr, nullptr);
  append_strings(fields.config.if_contains("extraArgs"), "extraArgs", spec.argv);

  spec.mode = choice(backend.if_contains("mode"), fields.where + ".mode", OutputMode::text,
                     {{"text", OutputMode::text}, {"jsonl", OutputMode::jsonl}}, "\"text\" or \"jsonl\"");
  spec.stdin_mode = choice(backend.if_contains("stdin"), fields.where + ".stdin", StdinMode::prompt,
                           {{"prompt", StdinMode::prompt}, {"none", StdinMode::none}, {"jsonl", StdinMode::jsonl}},
                           "\"prompt\", \"none\" or \"jsonl\"");
  spec.interrupt_grace = plugin_common::interrupt_grace(fields);
  spec.timeout_sec = bounded_integer(fields.config.if_contains("timeoutSec"), "timeoutSec", 0, 0, int64_t{1} << 32);

  const json::object input = parse_config_object(params.input_json.empty() ? "{}" : params.input_json, "input_json");
  if (const json::value* prompt = input.if_contains("prompt"); prompt != nullptr && !prompt->is_null()) {
    if (!prompt->is_string()) config_fail("input_json.prompt must be a string");
    spec.prompt = std::string(prompt->get_string());
  }
  const std::string& token = params.resume_token.value_or(std::string());
  spec.env = plugin_common::finish_environment(fields, params, std::move(env), [&](EnvironmentBuilder& ours) {
    if (spec.prompt.size() < kPromptEnvLimit && spec.prompt.find('\0') == std::string::npos)
      ours.set("AGENTRY_PROMPT", spec.prompt);
    else ours.unset("AGENTRY_PROMPT");
    if (!token.empty() && token.size() < kPromptEnvLimit && token.find('\0') == std::string::npos)
      ours.set("AGENTRY_RESUME_TOKEN", token);
    else ours.unset("AGENTRY_RESUME_TOKEN");
  });
  return spec;
}

}  // namespace

ParsedAttempt parse_attempt(const agentry::plugin::StartParams& params) {
  return plugin_common::parse_or_error([&] { return build(params); });
}

}  // namespace agentry::subprocess

#include "agentry/plugin_common/launch_fields.hpp"

#include <cstdlib>

namespace agentry::plugin_common {

namespace json = boost::json;

LaunchFields read_launch_fields(const agentry::plugin::StartParams& params, std::string_view name,
                                std::initializer_list<std::string_view> known) {
  if (params.workspace_path.empty()) config_fail("the start params have no workspace path");
  LaunchFields fields{parse_config_object(params.config_json, "config_json"), {}, "backendConfig." + std::string(name)};
  if (const json::value* b = fields.config.if_contains("backendConfig"); b != nullptr && !b->is_null()) {
    if (!b->is_object()) config_fail(fields.where + " must be an object");
    fields.backend = b->get_object();
  }
  for (const auto& field : fields.backend) {
    bool ok = false;
    for (std::string_view key : known) ok = ok || field.key() == key;
    if (ok) continue;
    std::string list;
    for (std::string_view key : known) list += (list.empty() ? "" : ", ") + std::string(key);
    config_fail("unknown key '" + std::string(field.key()) + "' in " + fields.where + " (known: " + list + ")");
  }
  return fields;
}

void apply_launcher(const json::object& config, std::vector<std::string>& argv, EnvironmentBuilder& env) {
  const json::value* launcher = config.if_contains("launcher");
  if (launcher == nullptr || launcher->is_null()) return;
  if (!launcher->is_object()) config_fail("launcher must be an object or null");
  append_strings(launcher->get_object().if_contains("command"), "launcher.command", argv);
  apply_env(launcher->get_object().if_contains("env"), "launcher.env", env);
}

void append_program(const LaunchFields& fields, std::vector<std::string>& argv, bool allow_binary, const char* env_var,
                    const char* fallback) {
  const std::size_t at = argv.size();
  if (const json::value* c = fields.backend.if_contains("command"); c != nullptr && !c->is_null()) {
    if (c->is_string()) argv.push_back(checked_string(*c, fields.where + ".command"));
    else append_strings(c, fields.where + ".command", argv);
  } else if (std::string binary = allow_binary ? optional_string(fields.backend, "binary", fields.where + ".binary") : "";
             !binary.empty()) {
    argv.push_back(std::move(binary));
  } else if (const char* bin = env_var != nullptr ? std::getenv(env_var) : nullptr; bin != nullptr && *bin != '\0') {
    argv.emplace_back(bin);
  } else if (fallback != nullptr) {
    argv.emplace_back(fallback);
  }
  if (argv.size() == at || argv[at].empty()) config_fail(fields.where + ".command must name the program to run");
}

std::chrono::milliseconds interrupt_grace(const LaunchFields& fields, int64_t fallback_ms) {
  return std::chrono::milliseconds(bounded_integer(fields.backend.if_contains("interruptGraceMs"),
                                                   fields.where + ".interruptGraceMs", fallback_ms, 0, 600000));
}

bool unrestricted(const json::object& config) {
  const json::value* u = config.if_contains("unrestricted");
  if (u == nullptr || u->is_null()) return false;
  if (!u->is_bool()) config_fail("unrestricted must be a boolean");
  return u->get_bool();
}

std::string required_prompt(const agentry::plugin::StartParams& params, std::string_view who) {
  const json::object input = parse_config_object(params.input_json, "input_json");
  std::string prompt = optional_string(input, "prompt", "input_json.prompt");
  if (prompt.empty()) config_fail("input_json.prompt is empty: " + std::string(who) + " needs a message to start a turn");
  return prompt;
}

std::string resume_token(const agentry::plugin::StartParams& params, std::string_view what, bool on_command_line) {
  if (!params.resume_token || params.resume_token->empty()) return {};
  const std::string& token = *params.resume_token;
  if (token.find('\0') != std::string::npos || (on_command_line && token.front() == '-'))
    config_fail("the resume token is not " + std::string(what));
  return token;
}

std::vector<std::string> finish_environment(const LaunchFields& fields, const agentry::plugin::StartParams& params,
                                            EnvironmentBuilder env,
                                            const std::function<void(EnvironmentBuilder&)>& last) {
  apply_env(fields.backend.if_contains("env"), fields.where + ".env", env);
  for (const std::string& entry : params.env) env.set_entry(entry);
  if (last) last(env);
  return env.take();
}

}  // namespace agentry::plugin_common

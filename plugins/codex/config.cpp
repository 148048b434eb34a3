#include "config.hpp"

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "agentry/plugin_common/config_fields.hpp"
#include "agentry/plugin_common/environment.hpp"
#include "agentry/plugin_common/launch_fields.hpp"
#include "agentry/plugin_common/runtime/url.hpp"

namespace agentry::codex {

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

std::string one_of(std::string value, const std::string& where, std::initializer_list<std::string_view> options) {
  std::string list;
  for (std::string_view option : options) {
    if (value == option) return value;
    list += (list.empty() ? "\"" : ", \"") + std::string(option) + "\"";
  }
  config_fail(where + " must be one of " + list);
}

// ws://host:port[/path] -> host, port, path. The port is required: app-server has no
// default one.
SocketTarget parse_ws_url(const std::string& url) {
  std::string why;
  const std::optional<plugin_common::runtime::NetUrl> parsed = plugin_common::runtime::parse_net_url(url, {"ws"}, why);
  if (!parsed) config_fail("backendConfig.url \"" + url + "\" " + why + " (wss is not supported)");
  if (!parsed->port_given) config_fail("backendConfig.url needs a port: ws://host:port");
  SocketTarget target;
  target.host = parsed->host;
  target.port = parsed->port;
  target.path = parsed->target;
  return target;
}

std::string read_token_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) config_fail("backendConfig.authTokenFile '" + path + "' cannot be read");
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string token = buffer.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ')) token.pop_back();
  if (token.empty() || token.find_first_of("\r\n") != std::string::npos)
    config_fail("backendConfig.authTokenFile '" + path + "' must hold one token on one line");
  return token;
}

const std::set<std::string, std::less<>> kKnownKeys = {
    "transport", "command", "binary",         "url",     "socket",           "authTokenFile",   "codexHome",
    "config",    "env",     "approvalPolicy", "sandbox", "interruptGraceMs", "shutdownGraceMs", "connectTimeoutMs"};

AttemptConfig build(const agentry::plugin::StartParams& params, AttemptMode mode) {
  if (params.workspace_path.empty()) config_fail("the start params have no workspace path");
  const json::object config = parse_config_object(params.config_json, "config_json");
  json::object backend;
  if (const json::value* b = config.if_contains("backendConfig"); b != nullptr && !b->is_null()) {
    if (!b->is_object()) config_fail("backendConfig must be an object");
    backend = b->get_object();
  }
  // agent-runner's shape: transport: {type: ws, url: ...}. Its fields join the flat ones.
  if (json::value* t = backend.if_contains("transport"); t != nullptr && t->is_object()) {
    json::object nested = t->get_object();
    json::value type = nested.contains("type") ? nested.at("type") : json::value("stdio");
    for (const auto& field : nested) {
      if (field.key() == "type") continue;
      if (field.key() != "url" && field.key() != "socket" && field.key() != "path" && field.key() != "authTokenFile")
        config_fail("unknown key '" + std::string(field.key()) +
                    "' in backendConfig.transport (known: type, url, socket or path, authTokenFile)");
      // agent-runner names the Unix socket `path` ({type: uds, path}); ours is `socket`.
      const std::string key = field.key() == "path" ? "socket" : std::string(field.key());
      if (backend.contains(key))
        config_fail("backendConfig." + key + " is given twice (" +
                    (field.key() == "path" ? "transport.path and socket" : "flat and in transport") + ")");
      backend[key] = field.value();
    }
    backend["transport"] = std::move(type);
  }
  for (const auto& field : backend)
    if (!kKnownKeys.contains(field.key())) {
      std::string known;
      for (const std::string& k : kKnownKeys) known += (known.empty() ? "" : ", ") + k;
      config_fail("unknown key '" + std::string(field.key()) + "' in backendConfig (known: " + known + ")" +
           (field.key() == "codex" ? "; backendConfig already is the codex section" : ""));
    }

  AttemptConfig out;
  out.cwd = params.workspace_path;
  const std::string transport = optional_string(backend, "transport", "backendConfig.transport");
  if (transport == "ws")
    out.transport = Transport::ws;
  else if (transport == "uds")
    out.transport = Transport::uds;
  else if (!transport.empty() && transport != "stdio")
    config_fail("backendConfig.transport must be \"stdio\", \"ws\" or \"uds\"");

  out.model = optional_string(config, "model", "model");
  out.effort = codex_effort(optional_string(config, "effort", "effort"));
  out.unrestricted = plugin_common::unrestricted(config);
  out.approval_policy = optional_string(backend, "approvalPolicy", "backendConfig.approvalPolicy");
  if (out.approval_policy.empty()) out.approval_policy = out.unrestricted ? "never" : "on-request";
  one_of(out.approval_policy, "backendConfig.approvalPolicy", {"untrusted", "on-request", "never"});
  out.sandbox = optional_string(backend, "sandbox", "backendConfig.sandbox");
  if (out.sandbox.empty()) out.sandbox = out.unrestricted ? "danger-full-access" : "workspace-write";
  one_of(out.sandbox, "backendConfig.sandbox", {"read-only", "workspace-write", "danger-full-access"});

  out.timeout_sec = bounded_integer(config.if_contains("timeoutSec"), "timeoutSec", 0, 0, int64_t{1} << 32);
  out.interrupt_grace_ms = static_cast<int>(
      bounded_integer(backend.if_contains("interruptGraceMs"), "backendConfig.interruptGraceMs", 5000, 0, 600000));
  out.shutdown_grace_ms = static_cast<int>(
      bounded_integer(backend.if_contains("shutdownGraceMs"), "backendConfig.shutdownGraceMs", 3000, 0, 600000));
  out.connect_timeout_ms = static_cast<int>(
      bounded_integer(backend.if_contains("connectTimeoutMs"), "backendConfig.connectTimeoutMs", 30000, 100, 600000));

  json::object overrides;
  if (const json::value* c = backend.if_contains("config"); c != nullptr && !c->is_null()) {
    if (!c->is_object()) config_fail("backendConfig.config must be an object of codex config keys");
    overrides = c->get_object();
  }
  // Commands run in a plain shell: a login shell's profile resets PATH, and the agent
  // would no longer find `agentry` (or anything its environment put on PATH). A
  // backendConfig.config of its own wins.
  if (!overrides.contains("allow_login_shell")) overrides["allow_login_shell"] = false;
  // The host's AGENTRY_* variables (the run, the daemon to call back, its token) must
  // reach the shell codex runs commands in: over ws/uds codex's server is not our child,
  // and codex's default shell policy drops names containing TOKEN or KEY. `set` is
  // applied after that filter.
  for (const std::string& entry : params.env) {
    const auto eq = entry.find('=');
    // ... and agent-runner's AGENT_RUNNER_* family, which the host sets beside ours.
    if (eq == std::string::npos || (entry.compare(0, 8, "AGENTRY_") != 0 && entry.compare(0, 13, "AGENT_RUNNER_") != 0))
      continue;
    overrides["shell_environment_policy.set." + entry.substr(0, eq)] = entry.substr(eq + 1);
  }

  if (out.transport == Transport::stdio) {
    for (const char* key : {"url", "socket", "authTokenFile"})
      if (backend.contains(key)) config_fail(std::string("backendConfig.") + key + " needs transport \"ws\" or \"uds\"");
    EnvironmentBuilder env = EnvironmentBuilder::inherited();
    std::vector<std::string> launcher;
    plugin_common::apply_launcher(config, launcher, env);
    apply_env(backend.if_contains("env"), "backendConfig.env", env);
    if (std::string home = optional_string(backend, "codexHome", "backendConfig.codexHome"); !home.empty())
      env.set("CODEX_HOME", home);
    for (const std::string& entry : params.env) env.set_entry(entry);
    out.stdio.env = env.take();

    std::string binary = optional_string(backend, "command", "backendConfig.command");
    if (binary.empty()) binary = optional_string(backend, "binary", "backendConfig.binary");
    if (binary.empty())
      binary = std::string(plugin_common::find_variable(out.stdio.env, "AGENTRY_CODEX_BIN").value_or("codex"));
    plugin_common::ResolvedProgram codex = plugin_common::resolve_program(binary, out.stdio.env, out.cwd);
    if (!codex.error.empty()) config_fail(codex.error + " (set backendConfig.command or AGENTRY_CODEX_BIN)");
    out.stdio.codex_binary = std::filesystem::path(out.cwd) / codex.path;  // as it is when absolute
    out.stdio.argv = launcher;
    out.stdio.argv.push_back(codex.path);
    out.stdio.argv.emplace_back("app-server");
    for (const auto& field : overrides) {
      out.stdio.argv.emplace_back("-c");
      out.stdio.argv.push_back(std::string(field.key()) + "=" + toml_value(field.value()));
    }
    append_strings(config.if_contains("extraArgs"), "extraArgs", out.stdio.argv);
    const std::string& program = launcher.empty() ? codex.path : launcher.front();
    plugin_common::ResolvedProgram resolved = plugin_common::resolve_program(program, out.stdio.env, out.cwd);
    if (!resolved.error.empty()) config_fail(resolved.error);
    out.stdio.program = resolved.path;
  } else {
    // The host refuses this too: an execution environment confines a process we start,
    // and over ws/uds the app-server is not ours, so it would run unconfined.
    if (const json::value* e = config.if_contains("environment"); e != nullptr && !e->is_null())
      config_fail("an execution environment cannot apply to codex over transport \"" + transport +
                  "\": the app-server is not started by agentry; use transport \"stdio\"");
    for (const char* key : {"command", "binary", "codexHome", "env"})
      if (backend.contains(key))
        config_fail(std::string("backendConfig.") + key + " applies to transport \"stdio\" only (the server is not ours)");
    if (out.transport == Transport::ws) {
      const std::string url = optional_string(backend, "url", "backendConfig.url");
      if (url.empty()) config_fail("backendConfig.url is required for transport \"ws\" (ws://127.0.0.1:PORT)");
      out.socket = parse_ws_url(url);
    } else {
      out.socket.socket_path = optional_string(backend, "socket", "backendConfig.socket");
      if (out.socket.socket_path.empty()) config_fail("backendConfig.socket is required for transport \"uds\" (a path)");
      out.socket.host = "localhost";
    }
    if (std::string file = optional_string(backend, "authTokenFile", "backendConfig.authTokenFile"); !file.empty())
      out.socket.bearer_token = read_token_file(file);
    out.thread_config = std::move(overrides);
  }

  const json::object input = parse_config_object(params.input_json, "input_json");
  out.prompt = optional_string(input, "prompt", "input_json.prompt");
  if (params.resume_token && !params.resume_token->empty()) out.resume_thread_id = *params.resume_token;
  out.adopt = mode == AttemptMode::adopt;
  if (out.adopt && !out.resume_thread_id) config_fail("adopting needs the thread id as the resume token");
  if (const json::value* checkpoint = input.if_contains("checkpoint"); out.adopt && checkpoint && checkpoint->is_object())
    if (std::string turn = optional_string(checkpoint->get_object(), "turnId", "input_json.checkpoint.turnId");
        !turn.empty())
      out.adopt_turn_id = std::move(turn);
  if (!out.adopt && out.prompt.empty()) config_fail("input_json.prompt is empty: codex needs something to say");
  return out;
}

}  // namespace

ParsedConfig parse_config(const agentry::plugin::StartParams& params, AttemptMode mode) {
  auto parsed = plugin_common::parse_or_error([&] { return build(params, mode); });
  return ParsedConfig{std::move(parsed.launch), std::move(parsed.error)};
}

std::string toml_value(const json::value& value) {
  switch (value.kind()) {
    case json::kind::string:
      return json::serialize(value);  // a JSON string is a valid TOML basic string
    case json::kind::array: {
      std::string out = "[";
      for (const json::value& item : value.get_array()) out += (out.size() > 1 ? ", " : "") + toml_value(item);
      return out + "]";
    }
    case json::kind::object: {
      std::string out = "{";
      for (const auto& field : value.get_object())
        out += (out.size() > 1 ? ", " : "") + json::serialize(json::value(field.key())) + " = " +
               toml_value(field.value());
      return out + "}";
    }
    default:
      return json::serialize(value);  // numbers and booleans are spelled alike
  }
}

std::string codex_effort(const std::string& effort) {
  if (effort == "off") return {};
  if (effort == "max") return "xhigh";
  return effort;
}

}  // namespace agentry::codex

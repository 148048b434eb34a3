#include "config.hpp"

#include <boost/json.hpp>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "agentry/plugin_common/environment.hpp"

namespace agentry::codex {

namespace json = boost::json;
using plugin_common::EnvironmentBuilder;

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

std::string string_at(const json::object& o, std::string_view key, const std::string& where) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return {};
  if (!v->is_string()) fail(where + " must be a string");
  std::string s(v->get_string());
  if (s.find('\0') != std::string::npos) fail(where + " contains a NUL character");
  return s;
}

void append_strings(const json::value* value, const std::string& where, std::vector<std::string>& out) {
  if (value == nullptr || value->is_null()) return;
  if (!value->is_array()) fail(where + " must be an array of strings");
  for (const json::value& item : value->get_array()) {
    if (!item.is_string()) fail(where + " must be an array of strings");
    out.emplace_back(item.get_string());
  }
}

void apply_env(const json::value* value, const std::string& where, EnvironmentBuilder& env) {
  if (value == nullptr || value->is_null()) return;
  if (!value->is_object()) fail(where + " must be an object of strings");
  for (const auto& field : value->get_object()) {
    if (!plugin_common::valid_variable_name(field.key()))
      fail(where + " has an invalid variable name '" + std::string(field.key()) + "'");
    if (!field.value().is_string()) fail(where + "." + std::string(field.key()) + " must be a string");
    env.set(field.key(), field.value().get_string());
  }
}

int64_t integer(const json::value* value, const std::string& where, int64_t fallback, int64_t min, int64_t max) {
  if (value == nullptr || value->is_null()) return fallback;
  int64_t n = 0;
  if (value->is_int64())
    n = value->get_int64();
  else if (value->is_uint64() && value->get_uint64() <= static_cast<uint64_t>(max))
    n = static_cast<int64_t>(value->get_uint64());
  else if (value->is_double() && std::fabs(value->get_double()) < 1e15 &&
           value->get_double() == std::floor(value->get_double()))
    n = static_cast<int64_t>(value->get_double());
  else
    fail(where + " must be an integer");
  if (n < min || n > max) fail(where + " must be between " + std::to_string(min) + " and " + std::to_string(max));
  return n;
}

std::string one_of(std::string value, const std::string& where, std::initializer_list<std::string_view> options) {
  std::string list;
  for (std::string_view option : options) {
    if (value == option) return value;
    list += (list.empty() ? "\"" : ", \"") + std::string(option) + "\"";
  }
  fail(where + " must be one of " + list);
}

// ws://host:port[/path] -> host, port, path.
SocketTarget parse_ws_url(const std::string& url) {
  constexpr std::string_view scheme = "ws://";
  if (url.rfind(scheme, 0) != 0) fail("backendConfig.url must start with ws:// (wss is not supported)");
  std::string rest = url.substr(scheme.size());
  SocketTarget target;
  if (const std::size_t slash = rest.find('/'); slash != std::string::npos) {
    target.path = rest.substr(slash);
    rest.resize(slash);
  }
  std::size_t colon = rest.rfind(':');
  if (!rest.empty() && rest.front() == '[') {  // [::1]:port
    const std::size_t close = rest.find(']');
    if (close == std::string::npos) fail("backendConfig.url has an unterminated IPv6 address");
    target.host = rest.substr(1, close - 1);
    colon = rest.find(':', close);
  } else {
    target.host = rest.substr(0, colon);
  }
  if (colon == std::string::npos || colon + 1 >= rest.size()) fail("backendConfig.url needs a port: ws://host:port");
  target.port = rest.substr(colon + 1);
  if (target.host.empty()) fail("backendConfig.url needs a host");
  return target;
}

std::string read_token_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail("backendConfig.authTokenFile '" + path + "' cannot be read");
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string token = buffer.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ')) token.pop_back();
  if (token.empty() || token.find_first_of("\r\n") != std::string::npos)
    fail("backendConfig.authTokenFile '" + path + "' must hold one token on one line");
  return token;
}

const std::set<std::string, std::less<>> kKnownKeys = {
    "transport", "command", "binary",         "url",     "socket",           "authTokenFile",   "codexHome",
    "config",    "env",     "approvalPolicy", "sandbox", "interruptGraceMs", "shutdownGraceMs", "connectTimeoutMs"};

AttemptConfig build(const agentry::plugin::StartParams& params) {
  if (params.workspace_path.empty()) fail("the start params have no workspace path");
  const json::object config = parse_object(params.config_json, "config_json");
  json::object backend;
  if (const json::value* b = config.if_contains("backendConfig"); b != nullptr && !b->is_null()) {
    if (!b->is_object()) fail("backendConfig must be an object");
    backend = b->get_object();
  }
  for (const auto& field : backend)
    if (!kKnownKeys.contains(field.key())) {
      std::string known;
      for (const std::string& k : kKnownKeys) known += (known.empty() ? "" : ", ") + k;
      fail("unknown key '" + std::string(field.key()) + "' in backendConfig (known: " + known + ")" +
           (field.key() == "codex" ? "; backendConfig already is the codex section" : ""));
    }

  AttemptConfig out;
  out.cwd = params.workspace_path;
  const std::string transport = string_at(backend, "transport", "backendConfig.transport");
  if (transport == "ws")
    out.transport = Transport::ws;
  else if (transport == "uds")
    out.transport = Transport::uds;
  else if (!transport.empty() && transport != "stdio")
    fail("backendConfig.transport must be \"stdio\", \"ws\" or \"uds\"");

  out.model = string_at(config, "model", "model");
  out.effort = string_at(config, "effort", "effort");
  const json::value* unrestricted = config.if_contains("unrestricted");
  if (unrestricted != nullptr && !unrestricted->is_null() && !unrestricted->is_bool())
    fail("unrestricted must be a boolean");
  out.unrestricted = unrestricted != nullptr && unrestricted->is_bool() && unrestricted->get_bool();
  out.approval_policy = string_at(backend, "approvalPolicy", "backendConfig.approvalPolicy");
  if (out.approval_policy.empty()) out.approval_policy = out.unrestricted ? "never" : "on-request";
  one_of(out.approval_policy, "backendConfig.approvalPolicy", {"untrusted", "on-request", "never"});
  out.sandbox = string_at(backend, "sandbox", "backendConfig.sandbox");
  if (out.sandbox.empty()) out.sandbox = out.unrestricted ? "danger-full-access" : "workspace-write";
  one_of(out.sandbox, "backendConfig.sandbox", {"read-only", "workspace-write", "danger-full-access"});

  out.timeout_sec = integer(config.if_contains("timeoutSec"), "timeoutSec", 0, 0, int64_t{1} << 32);
  out.interrupt_grace_ms = static_cast<int>(
      integer(backend.if_contains("interruptGraceMs"), "backendConfig.interruptGraceMs", 5000, 0, 600000));
  out.shutdown_grace_ms = static_cast<int>(
      integer(backend.if_contains("shutdownGraceMs"), "backendConfig.shutdownGraceMs", 3000, 0, 600000));
  out.connect_timeout_ms = static_cast<int>(
      integer(backend.if_contains("connectTimeoutMs"), "backendConfig.connectTimeoutMs", 30000, 100, 600000));

  json::object overrides;
  if (const json::value* c = backend.if_contains("config"); c != nullptr && !c->is_null()) {
    if (!c->is_object()) fail("backendConfig.config must be an object of codex config keys");
    overrides = c->get_object();
  }

  if (out.transport == Transport::stdio) {
    for (const char* key : {"url", "socket", "authTokenFile"})
      if (backend.contains(key)) fail(std::string("backendConfig.") + key + " needs transport \"ws\" or \"uds\"");
    EnvironmentBuilder env = EnvironmentBuilder::inherited();
    std::vector<std::string> launcher;
    if (const json::value* l = config.if_contains("launcher"); l != nullptr && !l->is_null()) {
      if (!l->is_object()) fail("launcher must be an object or null");
      append_strings(l->get_object().if_contains("command"), "launcher.command", launcher);
      apply_env(l->get_object().if_contains("env"), "launcher.env", env);
    }
    apply_env(backend.if_contains("env"), "backendConfig.env", env);
    if (std::string home = string_at(backend, "codexHome", "backendConfig.codexHome"); !home.empty())
      env.set("CODEX_HOME", home);
    for (const std::string& entry : params.env) env.set_entry(entry);
    out.stdio.env = env.take();

    std::string binary = string_at(backend, "command", "backendConfig.command");
    if (binary.empty()) binary = string_at(backend, "binary", "backendConfig.binary");
    if (binary.empty())
      binary = std::string(plugin_common::find_variable(out.stdio.env, "AGENTRY_CODEX_BIN").value_or("codex"));
    plugin_common::ResolvedProgram codex = plugin_common::resolve_program(binary, out.stdio.env, out.cwd);
    if (!codex.error.empty()) fail(codex.error + " (set backendConfig.command or AGENTRY_CODEX_BIN)");
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
    if (!resolved.error.empty()) fail(resolved.error);
    out.stdio.program = resolved.path;
  } else {
    for (const char* key : {"command", "binary", "codexHome", "env"})
      if (backend.contains(key))
        fail(std::string("backendConfig.") + key + " applies to transport \"stdio\" only (the server is not ours)");
    if (out.transport == Transport::ws) {
      const std::string url = string_at(backend, "url", "backendConfig.url");
      if (url.empty()) fail("backendConfig.url is required for transport \"ws\" (ws://127.0.0.1:PORT)");
      out.socket = parse_ws_url(url);
    } else {
      out.socket.socket_path = string_at(backend, "socket", "backendConfig.socket");
      if (out.socket.socket_path.empty()) fail("backendConfig.socket is required for transport \"uds\" (a path)");
      out.socket.host = "localhost";
    }
    if (std::string file = string_at(backend, "authTokenFile", "backendConfig.authTokenFile"); !file.empty())
      out.socket.bearer_token = read_token_file(file);
    out.thread_config = std::move(overrides);
  }

  const json::object input = parse_object(params.input_json, "input_json");
  out.prompt = string_at(input, "prompt", "input_json.prompt");
  if (out.prompt.empty()) fail("input_json.prompt is empty: codex needs something to say");
  if (params.resume_token && !params.resume_token->empty()) out.resume_thread_id = *params.resume_token;
  return out;
}

}  // namespace

ParsedConfig parse_config(const agentry::plugin::StartParams& params) {
  try {
    return ParsedConfig{build(params), {}};
  } catch (const ConfigError& e) {
    return ParsedConfig{std::nullopt, e.message};
  }
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

}  // namespace agentry::codex

#include "environments/launch.hpp"

#include <array>

namespace agentry::environments {
namespace json = boost::json;

namespace {

core::Failure refuse(const core::FrozenEnvironment& environment, const std::string& why, std::string_view reason) {
  return core::fail(core::ErrorCode::validation,
                    "environment '" + environment.name + "' cannot be used: " + why,
                    {{"field", "environment"}, {"environment", environment.name}, {"reason", reason}});
}

/// backendConfig.transport as codex reads it: "ws", {type: "ws", ...} or absent (stdio).
std::string codex_transport(const json::object& backend_config) {
  const auto* t = backend_config.if_contains("transport");
  if (t == nullptr || t->is_null()) return "stdio";
  if (t->is_string()) return std::string(t->as_string());
  if (t->is_object())
    if (const auto* type = t->as_object().if_contains("type"); type && type->is_string())
      return std::string(type->as_string());
  return "stdio";
}

}  // namespace

bool backend_applies_launcher(std::string_view backend) {
  constexpr std::array<std::string_view, 6> backends{"subprocess", "claude", "codex", "acp", "pi", "cursor"};
  for (auto b : backends)
    if (b == backend) return true;
  return false;
}

core::Result<void> check_launchable(const core::FrozenEnvironment& environment, std::string_view backend,
                                    const json::object& backend_config) {
  if (environment.kind == "container")
    return refuse(environment,
                  "container environments are not supported yet; use a bubblewrap environment, or run without "
                  "one",
                  "not_supported");
  if (environment.kind != "bubblewrap")
    return refuse(environment, "its kind '" + environment.kind + "' is not one this agentry can launch",
                  "not_supported");
  if (!backend_applies_launcher(backend))
    return refuse(environment,
                  "backend '" + std::string(backend) +
                      "' does not start its agent through a launcher command, so it cannot run in an environment "
                      "(supported: subprocess, claude, codex over stdio, acp, pi, cursor)",
                  "backend_not_supported");
  if (backend == "codex") {
    const std::string transport = codex_transport(backend_config);
    if (transport == "ws" || transport == "uds")
      return refuse(environment,
                    "codex over transport \"" + transport +
                        "\" talks to an app-server agentry does not start, so agentry cannot confine it; use "
                        "transport \"stdio\"",
                    "backend_not_supported");
  }
  return core::ok();
}

std::vector<std::string> bubblewrap_command(const core::FrozenEnvironment& environment, const std::string& cwd) {
  std::vector<std::string> argv{environment.program.empty() ? "bwrap" : environment.program,
                                "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
                                "--bind", cwd, cwd};
  for (const auto& m : environment.mounts) {
    argv.emplace_back(m.read_only ? "--ro-bind" : "--bind");
    argv.push_back(m.source);
    argv.push_back(m.target.empty() ? m.source : m.target);
  }
  if (environment.network != "host") argv.emplace_back("--unshare-net");
  argv.emplace_back("--die-with-parent");
  argv.insert(argv.end(), environment.extra_args.begin(), environment.extra_args.end());
  argv.insert(argv.end(), {"--chdir", cwd, "--"});
  return argv;
}

json::object wrap_launcher(const core::FrozenEnvironment& environment,
                           const std::optional<core::FrozenLauncher>& launcher, const std::string& cwd) {
  json::array command;
  for (auto& arg : bubblewrap_command(environment, cwd)) command.emplace_back(arg);
  json::object env = environment.env;
  std::string name;
  if (launcher) {
    name = launcher->name;
    for (const auto& arg : launcher->command) command.emplace_back(arg);
    for (const auto& [key, value] : launcher->env) env[key] = value;
  }
  return {{"name", name}, {"command", std::move(command)}, {"env", std::move(env)}};
}

}  // namespace agentry::environments

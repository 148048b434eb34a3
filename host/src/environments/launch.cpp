#include "environments/launch.hpp"

#include "environments/container_manager.hpp"
#include "environments/exec_relay.hpp"

#include <array>
#include <filesystem>

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
  constexpr std::array<std::string_view, 7> backends{"subprocess", "claude", "codex", "acp", "pi", "cursor", "mock"};
  for (auto b : backends)
    if (b == backend) return true;
  return false;
}

core::Result<void> check_launchable(const core::FrozenEnvironment& environment, std::string_view backend,
                                    const json::object& backend_config) {
  if (environment.kind == "container" && !environment.container)
    return refuse(environment, "its container settings are missing (frozen by an older agentry); start a new run",
                  "not_supported");
  if (environment.kind != "bubblewrap" && environment.kind != "container")
    return refuse(environment, "its kind '" + environment.kind + "' is not one this agentry can launch",
                  "not_supported");
  if (!backend_applies_launcher(backend))
    return refuse(environment,
                  "backend '" + std::string(backend) +
                      "' does not start its agent through a launcher command, so it cannot run in an environment "
                      "(supported: subprocess, claude, codex over stdio, acp, pi, cursor, mock)",
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

std::vector<std::string> bubblewrap_command(const core::FrozenEnvironment& environment, const std::string& cwd,
                                            const std::string& daemon_socket) {
  std::vector<std::string> argv{environment.program.empty() ? "bwrap" : environment.program,
                                "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
                                "--bind", cwd, cwd};
  for (const auto& m : environment.mounts) {
    argv.emplace_back(m.read_only ? "--ro-bind" : "--bind");
    argv.push_back(m.source);
    argv.push_back(m.target.empty() ? m.source : m.target);
  }
  if (environment.network != "host") {
    argv.emplace_back("--unshare-net");
    if (!daemon_socket.empty()) {
      const std::string dir = std::filesystem::path(daemon_socket).parent_path().string();
      argv.insert(argv.end(), {"--ro-bind", dir, dir});
    }
  }
  argv.emplace_back("--die-with-parent");
  argv.insert(argv.end(), environment.extra_args.begin(), environment.extra_args.end());
  argv.insert(argv.end(), {"--chdir", cwd, "--"});
  return argv;
}

std::vector<std::string> container_exec_command(const core::FrozenEnvironment& environment,
                                                const ContainerExec& exec) {
  const auto& spec = *environment.container;
  std::vector<std::string> engine{spec.engine};
  engine.insert(engine.end(), spec.engine_args.begin(), spec.engine_args.end());
  engine.insert(engine.end(), {"exec", "-i", "--workdir", exec.workdir, "-e",
                               std::string(exec_marker_variable) + "=" + exec.marker});
  engine.insert(engine.end(), spec.extra_exec_args.begin(), spec.extra_exec_args.end());
  std::vector<std::string> argv{exec.relay_binary, "container-exec", "--marker", exec.marker, "--container",
                                exec.container};
  if (exec.daemon_socket) argv.insert(argv.end(), {"--set", std::string("AGENTRY_CONNECT=") + daemon_socket_inside});
  argv.insert(argv.end(), {"--engine-argc", std::to_string(engine.size()), "--"});
  argv.insert(argv.end(), engine.begin(), engine.end());
  return argv;
}

core::Result<json::object> wrap_launcher(const core::FrozenEnvironment& environment,
                                         const std::optional<core::FrozenLauncher>& launcher, const std::string& cwd,
                                         const ContainerExec* exec, const std::string& daemon_socket) {
  json::array command;
  if (environment.kind == "container") {
    if (exec == nullptr)
      return refuse(environment, "its container was not prepared for this attempt", "not_supported");
    for (auto& arg : container_exec_command(environment, *exec)) command.emplace_back(arg);
  } else {
    for (auto& arg : bubblewrap_command(environment, cwd, daemon_socket)) command.emplace_back(arg);
  }
  json::object env = environment.env;
  std::string name;
  if (launcher) {
    name = launcher->name;
    for (const auto& arg : launcher->command) command.emplace_back(arg);
    for (const auto& [key, value] : launcher->env) env[key] = value;
  }
  return json::object{{"name", name}, {"command", std::move(command)}, {"env", std::move(env)}};
}

}  // namespace agentry::environments

#pragma once
// Launching an agent inside a run's execution environment (core::FrozenEnvironment).
// The host never runs the sandbox itself: it puts the sandbox's command in front of the
// launcher command a backend places before the agent's program (config_json's
// `launcher.command`), so every process-driving backend confines its agent the same way.
//
// For a container, that prefix is the exec relay (exec_relay.hpp) around the engine's
// `exec` into the container the run was given (container_manager.hpp).
//
// An environment that cannot be applied is an error, never a run on the host: a kind
// agentry cannot launch, a backend that does not start its agent through the launcher
// prefix (browser, passive, plugins of others), or Codex over ws/uds (its app-server is
// not our child).

#include "core/result.hpp"
#include "core/run.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::environments {

/// The backends that put `launcher.command` in front of the program they start.
bool backend_applies_launcher(std::string_view backend);

/// VALIDATION_FAILED (details: { field: "environment", environment, reason }) when a run
/// with `backend` and its frozen `backend_config` cannot run its agent in `environment`.
core::Result<void> check_launchable(const core::FrozenEnvironment& environment, std::string_view backend,
                                    const boost::json::object& backend_config);

/// `bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --bind <cwd> <cwd> [mounts]
/// [--unshare-net] --die-with-parent [extraArgs] --chdir <cwd> --`: the host read-only, the
/// cwd writable, a private /tmp (before any bind under it, or it would hide them), no
/// network unless `network: host`.
/// `daemon_socket`: with no network, its directory is bound (read-only: a socket still
/// connects) after the private /tmp, which would otherwise hide a socket under /tmp.
std::vector<std::string> bubblewrap_command(const core::FrozenEnvironment& environment, const std::string& cwd,
                                            const std::string& daemon_socket = {});

/// An attempt's way into its container.
struct ContainerExec {
  std::string relay_binary;  // this agentry, which serves `container-exec`
  std::string container;
  std::string workdir;  // the run's cwd, inside
  std::string marker;   // unique to the attempt: what the relay finds its processes by
  bool daemon_socket = false;  // the daemon's socket is mounted at /run/agentry
};

/// `agentry container-exec --marker M --container C [--set AGENTRY_CONNECT=unix://...]
/// --engine-argc N -- <engine> [engineArgs] exec -i --workdir W -e AGENTRY_CONTAINER_EXEC=M
/// [extraExecArgs]`: the backend appends the launcher's command and the agent's.
std::vector<std::string> container_exec_command(const core::FrozenEnvironment& environment,
                                                const ContainerExec& exec);

/// The launcher object of config_json for an attempt in `environment`: the sandbox's
/// command (a container's: `exec`, which it needs), then `launcher`'s (if any); the
/// environment's env, then the launcher's.
core::Result<boost::json::object> wrap_launcher(const core::FrozenEnvironment& environment,
                                                const std::optional<core::FrozenLauncher>& launcher,
                                                const std::string& cwd, const ContainerExec* exec = nullptr,
                                                const std::string& daemon_socket = {});

}  // namespace agentry::environments

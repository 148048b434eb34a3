#pragma once
// Launching an agent inside a run's execution environment (core::FrozenEnvironment).
// The host never runs the sandbox itself: it puts the sandbox's command in front of the
// launcher command a backend places before the agent's program (config_json's
// `launcher.command`), so every process-driving backend confines its agent the same way.
//
// An environment that cannot be applied is an error, never a run on the host: a kind
// agentry cannot launch yet (container), a backend that does not start its agent through
// the launcher prefix (mock, browser, passive, plugins of others), or Codex over ws/uds
// (its app-server is not our child).

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
std::vector<std::string> bubblewrap_command(const core::FrozenEnvironment& environment, const std::string& cwd);

/// The launcher object of config_json for an attempt in `environment`: the sandbox's
/// command, then `launcher`'s (if any); the environment's env, then the launcher's.
boost::json::object wrap_launcher(const core::FrozenEnvironment& environment,
                                  const std::optional<core::FrozenLauncher>& launcher, const std::string& cwd);

}  // namespace agentry::environments

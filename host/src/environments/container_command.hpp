#pragma once
// The engine command lines of a container environment, as pure functions: what
// `run -d` makes a managed container with, and how a lifecycle step is exec'd. The
// manager (container_manager.hpp) runs them; tests read them.

#include "core/result.hpp"
#include "core/run.hpp"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace agentry::environments {

struct ContainerRunInputs {
  std::string name;
  std::string owner;  // this agentry home: the agentry.owner label
  std::string run_id;
  std::string group_id;
  std::string host_root;    // the workspace on the host
  std::string inside_root;  // ... and where it shows inside
  std::string fingerprint;  // the agentry.spec label
  std::string agentry_binary;  // mounted read-only at /usr/local/bin/agentry; empty: not
  std::string daemon_socket;   // its directory mounted at /run/agentry; empty: not
  std::vector<core::Mount> mounts;  // the environment's and the session mounts, rendered
};

/// `run -d --name ... --label ... --network ... [security] --volume ... -e NAME...
/// --workdir ... --entrypoint ... [extraRunArgs] <image> [keepAlive args]`, without the
/// engine and its engineArgs. VALIDATION_FAILED for a path a volume cannot name.
core::Result<std::vector<std::string>> container_run_args(const core::FrozenEnvironment& environment,
                                                          const ContainerRunInputs& inputs);

/// The commands one (rendered) step runs, in order, in `workdir` (its own `cwd` first):
/// a command step's program and args; a git-clone step's `git clone -- <source> <workdir>`
/// then `git -C <workdir> checkout -b <branch> <baseRef>`.
std::vector<std::vector<std::string>> step_commands(const core::ContainerStep& step, const std::string& workdir);

/// `exec [-d] [--user U] --workdir W -e NAME... <container> <command>`: a step's command
/// inside; its env and the environment's go by name.
std::vector<std::string> container_exec_args(const core::FrozenEnvironment& environment, const std::string& container,
                                             const std::string& workdir, const core::ContainerStep& step,
                                             const std::vector<std::string>& command);

/// The environment's `env` as NAME, VALUE: given to the engine's own environment, which
/// `-e NAME` passes in, so values never show on a command line.
std::vector<std::pair<std::string, std::string>> environment_values(const core::FrozenEnvironment& environment);

/// `cwd` seen from inside, when it is `host_root` or below it (`host_root` shows at
/// `inside_root`).
std::optional<std::string> inside_path(const std::string& host_root, const std::string& inside_root,
                                       const std::string& cwd);

/// `text` with each {{token}} of `tokens` replaced; nullopt (and `unknown` set to it)
/// when it names another. Tokens: cwd, run_id, run_group_id, state_dir, config_dir,
/// workspace_host_path, workspace_container_path.
std::optional<std::string> render_tokens(const std::string& text, const std::map<std::string, std::string>& tokens,
                                         std::string* unknown = nullptr);

/// The host paths `sessionMounts` stands for (same path inside, read-write): "backend"
/// is the run's backend's store; a preset's store under `home` (codex: `codex_home`
/// when set). Only those that exist, or that can be made, are returned.
std::vector<core::Mount> session_mount_paths(const std::vector<std::string>& presets, const std::string& backend,
                                             const std::string& home, const std::string& codex_home);

/// VALIDATION_FAILED about `environment` (details: { field: "environment", environment, reason }).
core::Failure environment_refusal(const core::FrozenEnvironment& environment, const std::string& why,
                                  std::string_view reason);

}  // namespace agentry::environments

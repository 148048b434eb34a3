#pragma once
// The engine command lines of a container environment, as pure functions: what
// `run -d` makes a managed container with, and how a lifecycle step is exec'd. The
// manager (container_manager.hpp) runs them; tests read them.

#include "core/result.hpp"
#include "core/run.hpp"

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
  std::string fingerprint;  // the agentry.spec label
  std::string agentry_binary;  // mounted read-only at /usr/local/bin/agentry; empty: not
  std::string daemon_socket;   // its directory mounted at /run/agentry; empty: not
};

/// `run -d --name ... --label ... --network ... [security] --volume ... -e NAME...
/// --workdir ... --entrypoint ... [extraRunArgs] <image> [keepAlive args]`, without the
/// engine and its engineArgs. VALIDATION_FAILED for a path a volume cannot name.
core::Result<std::vector<std::string>> container_run_args(const core::FrozenEnvironment& environment,
                                                          const ContainerRunInputs& inputs);

/// `exec --workdir W -e NAME... <container> <the step's command>` (a git-clone step is
/// `git clone [--branch ref] -- url path`).
std::vector<std::string> container_step_args(const core::FrozenEnvironment& environment, const std::string& container,
                                             const std::string& workdir, const core::ContainerStep& step);
/// What a step runs inside.
std::vector<std::string> step_command(const core::ContainerStep& step, const std::string& workdir);

/// The environment's `env` as NAME, VALUE: given to the engine's own environment, which
/// `-e NAME` passes in, so values never show on a command line.
std::vector<std::pair<std::string, std::string>> environment_values(const core::FrozenEnvironment& environment);

/// `cwd` seen from inside, when it is `host_root` or below it (`host_root` shows at
/// `inside_root`).
std::optional<std::string> inside_path(const std::string& host_root, const std::string& inside_root,
                                       const std::string& cwd);

/// VALIDATION_FAILED about `environment` (details: { field: "environment", environment, reason }).
core::Failure environment_refusal(const core::FrozenEnvironment& environment, const std::string& why,
                                  std::string_view reason);

}  // namespace agentry::environments

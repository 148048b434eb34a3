#pragma once
// An execution environment: where a run's agent process runs. File:
// environments/<name>.yaml (or .yml). Two kinds:
//   bubblewrap: the host's filesystem read-only, the run's cwd writable, a private /tmp,
//               no network unless `network: host`, plus writable `mounts` (docs/environments.md);
//   container:  podman/docker through their CLIs, managed (agentry creates, reuses and
//               removes it) or existing (someone else's, exec'd into).
// Unknown keys are errors (not warnings): a misspelt confinement setting must never
// silently run an agent with less confinement than its author meant.

#include "core/run.hpp"
#include "definitions/problem.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace agentry::definitions {

struct EnvironmentMount {
  std::string source;  // absolute, on the host
  std::string target;  // absolute, inside the sandbox; the source's path when not given
  bool read_only = false;
};

struct EnvironmentDefinition {
  std::string name;
  std::filesystem::path source_path;
  std::string description;
  std::string kind;               // "bubblewrap" | "container"
  std::string network = "none";   // bubblewrap: none | host; container: also a network name ("" existing)
  std::string program = "bwrap";  // bubblewrap: the bwrap program (`bwrap:`)
  std::vector<EnvironmentMount> mounts;
  std::map<std::string, std::string> env;
  std::vector<std::string> extra_args;  // bubblewrap: more bwrap options (`extraArgs:`)
  std::optional<core::ContainerSpec> container;  // kind container
  std::vector<Problem> warnings;
};

/// The environment as a run freezes it.
core::FrozenEnvironment to_frozen_environment(const EnvironmentDefinition& environment);

}  // namespace agentry::definitions

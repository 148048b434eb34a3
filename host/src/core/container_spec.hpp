#pragma once
// A container execution environment (environments/<name>.yaml, `kind: container`), as
// definitions/ reads it and a run freezes it: the typed form the container manager
// (environments/) works from; `mounts`, `env` and `network` are the environment's
// (core::FrozenEnvironment), as for every kind. Its JSON form uses the file's field names, so a frozen
// run reads like the definition it came from.

#include "core/mount.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace agentry::core {

/// One lifecycle step, run inside the container through the engine's `exec`: a command,
/// or a clone of a git repository (`git clone [--branch ref] url path`, git from the image).
struct ContainerStep {
  std::vector<std::string> command;  // `command:` (a string is run by `sh -c`)
  std::string clone_url;             // `git-clone: {url, ref, path}`
  std::string clone_ref;
  std::string clone_path;  // empty: the workspace
};

struct ContainerSecurity {
  std::string user;                      // `--user`; empty: the image's
  bool read_only_root = false;           // `--read-only`
  bool no_new_privileges = true;         // `--security-opt no-new-privileges`
  std::vector<std::string> cap_drop{"ALL"};
  std::vector<std::string> cap_add;
};

struct ContainerSpec {
  std::string mode = "managed";  // managed: agentry creates it | existing: someone else's
  std::string engine = "podman";  // podman | docker (their CLIs, found on PATH)
  std::vector<std::string> engine_args;  // global engine options, before every subcommand
  std::string image;                     // managed
  std::string container;                 // existing: its name or id
  std::string lifetime = "run";          // run | group
  std::string workspace_host;            // empty: the run's cwd
  std::string workspace_container;       // empty: the host path (same path inside)
  std::vector<ContainerStep> after_start;
  std::vector<ContainerStep> on_workspace_create;
  /// The backend's own state (its sessions, its login), kept on the host so a new
  /// container resumes it; created on the host when missing. The environment's `mounts`,
  /// `env` and `network` are FrozenEnvironment's, shared with bubblewrap.
  std::vector<Mount> session_mounts;
  ContainerSecurity security;
  std::vector<std::string> extra_run_args;
  std::vector<std::string> extra_exec_args;
  std::string cleanup = "session-end";  // session-end | run-delete | never
  /// managed: the container's own command, which only keeps it up for `exec`s.
  std::vector<std::string> keep_alive{"sleep", "infinity"};
};

boost::json::object to_json(const ContainerSpec& spec);
ContainerSpec container_spec_from_json(const boost::json::object& o);

}  // namespace agentry::core

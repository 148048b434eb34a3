#pragma once
// A container execution environment (environments/<name>.yaml, `kind: container`), as
// definitions/ reads it and a run freezes it: the typed form the container manager
// (environments/) works from. The file format is agent-runner's (its
// docs/execution-environments.md) plus a few agentry fields (engineArgs, keepAlive,
// security.user and noNewPrivileges). Paths, names and commands may hold {{tokens}}
// (cwd, run_id, run_group_id, state_dir, config_dir, workspace_host_path,
// workspace_container_path), rendered when the container is made. Its JSON form uses
// the file's field names, so a frozen run reads like the definition it came from;
// `mounts`, `env` and `network` are the environment's (core::FrozenEnvironment), as for
// every kind.

#include "core/mount.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace agentry::core {

/// One lifecycle step: a command (`command` + `args`) or a git clone into the workspace
/// (`git clone <source>`, then a `branch` made at `baseRef`), on the host or inside.
struct ContainerStep {
  std::string kind = "command";      // command | git-clone
  std::string target = "container";  // host | container
  std::vector<std::string> command;  // command: the program, then its args
  boost::json::object env;           // command: added variables
  std::string cwd;                   // command: where (default: the workspace)
  std::string user;                  // command, container: `exec --user`
  bool detach = false;               // command, container: `exec -d`, not waited for
  int timeout_ms = 0;                // 0: the default (30 minutes)
  std::string source;                // git-clone: the repository
  std::string base_ref;              // git-clone
  std::string branch;                // git-clone
};

struct ContainerSecurity {
  std::string userns;         // keep-id | host | "" (the engine's)
  std::string selinux_label;  // disable | shared | private | ""
  bool read_only_root = false;
  std::vector<std::string> cap_drop;
  std::vector<std::string> cap_add;
  std::string user;               // agentry: `run --user`; empty: the image's
  bool no_new_privileges = true;  // agentry: `--security-opt no-new-privileges`
};

struct ContainerSpec {
  std::string mode = "managed";  // managed: agentry creates it | existing: someone else's
  std::string engine = "docker";  // docker | podman (their CLIs, found on PATH)
  std::vector<std::string> engine_args;  // agentry: global engine options, before every subcommand
  std::string image;                     // managed
  std::string container;                 // existing: its name or id
  std::string container_name;            // managed: a name of one's own (default: agentry's)
  std::string lifetime = "run";          // run | group
  std::string cwd = "{{cwd}}";           // the backend's cwd, on the host (rewritten to the inside)
  bool workspace = false;                // a `workspace` block was given
  std::string workspace_scope = "run";   // run | group: whose directory under hostRoot
  std::string workspace_host_root;       // hostRoot: <root>/<run or group id>
  std::string workspace_host;            // hostPath
  std::string workspace_container;       // containerPath
  bool workspace_read_only = false;      // mode: ro
  bool workspace_create = true;
  std::vector<ContainerStep> after_start;
  std::vector<ContainerStep> on_workspace_create;
  /// "backend" (the run's backend's) or presets: claude, codex, cursor, opencode, pi.
  std::vector<std::string> session_mounts;
  std::vector<Mount> expected_mounts;  // existing: checked, never added
  ContainerSecurity security;
  std::vector<std::string> extra_run_args;
  std::vector<std::string> extra_exec_args;
  std::string cleanup = "terminal";  // terminal: when the session ends | manual
  /// agentry, managed: the container's own command, which only keeps it up for `exec`s.
  std::vector<std::string> keep_alive{"sleep", "infinity"};
};

boost::json::object to_json(const ContainerSpec& spec);
ContainerSpec container_spec_from_json(const boost::json::object& o);

}  // namespace agentry::core

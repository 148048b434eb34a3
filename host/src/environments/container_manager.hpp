#pragma once
// The containers runs execute in (kind: container, docs/environments.md). For a managed
// environment it creates the container (or finds it again), runs its lifecycle steps,
// and removes it per the cleanup policy once no live run uses it; for an existing one
// it checks that the container is up and shows the run's cwd. Every container it makes
// carries labels (agentry.owner = this agentry home, the environment, the run or group,
// the spec's fingerprint), so it can find them again after a restart and never touches
// anyone else's.
//
// Blocking: every call runs the engine's CLI. Callers are a run's blocking lane or a
// CLI command, never a request worker. Thread-safe; calls about one container are
// serialised (create, reuse and remove cannot interleave).

#include "core/result.hpp"
#include "core/run.hpp"
#include "environments/container_engine.hpp"

#include <boost/json/object.hpp>

#include <functional>
#include <map>
#include <memory>
#include <chrono>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace agentry::environments {

/// One thing done to a container, for the run's audit trail (type e.g.
/// "environment.container_created"; data says which container, and the engine's words
/// when it failed).
struct ContainerAction {
  std::string type;
  boost::json::object data;
};

struct ContainerRequest {
  std::string run_id;
  std::string group_id;
  std::string cwd;  // the run's, on the host
  const core::FrozenEnvironment* environment = nullptr;
  std::function<bool()> cancelled{};  // the run is stopping: give up on a long step
  std::string backend;                // whose store `sessionMounts: backend` mounts
};

/// Where an attempt's agent runs.
struct ContainerPlacement {
  std::string container;  // a name (managed) or the existing container's name or id
  std::string workdir;    // the run's cwd, inside
  bool daemon_socket = false;  // the daemon's socket is at daemon_socket_inside
};

/// A container of this agentry home, for `environments status` and cleanup.
struct ContainerRecord {
  std::string engine;
  ContainerState state;
  std::vector<std::string> users;  // the live runs using it now
};

/// Where agentry puts its own things in a managed container.
inline constexpr const char* agentry_inside = "/usr/local/bin/agentry";
inline constexpr const char* socket_dir_inside = "/run/agentry";
inline constexpr const char* daemon_socket_inside = "unix:///run/agentry/agentry.sock";

class ContainerManager {
 public:
  /// `owner`: this agentry home, the label every container it makes carries.
  explicit ContainerManager(std::string owner);

  /// This binary, mounted read-only in managed containers so their agents can run
  /// `agentry task set`; and the daemon's Unix socket, whose directory is mounted
  /// there so they can reach it without a network. Empty: not mounted.
  void set_agentry_binary(std::string path);
  void set_daemon_socket(std::string path);
  /// The config directory: the {{config_dir}} of an environment's paths.
  void set_config_dir(std::string path) { config_dir_ = std::move(path); }
  std::string agentry_binary() const;

  /// The container for one attempt of `request.run_id`: made, started or found. The run
  /// counts as a user until release().
  core::Result<ContainerPlacement> acquire(const ContainerRequest& request, std::vector<ContainerAction>& actions);
  /// The run's session ended with none to follow: a `cleanup: {policy: terminal}`
  /// container no other live run uses is removed.
  void release(const std::string& run_id, const std::string& group_id, const core::FrozenEnvironment& environment,
               std::vector<ContainerAction>& actions);
  /// The run was deleted: its managed container goes, whatever the policy (a group's
  /// only when `last_of_group`).
  void run_deleted(const std::string& run_id, const std::string& group_id, const core::FrozenEnvironment& environment,
                   bool last_of_group, std::vector<ContainerAction>& actions);

  /// After an attempt of `run_id` failed: what became of its container, when it is no
  /// longer running ("the container X stopped while the agent ran (exited, exit code
  /// 137)"), else nullopt.
  std::optional<std::string> stopped_under(const std::string& run_id, const std::string& group_id,
                                           const core::FrozenEnvironment& environment);

  /// The containers of this home on `engines` (engine name → its engineArgs); an
  /// engine that cannot answer adds its error to `errors`.
  std::vector<ContainerRecord> list(const std::map<std::string, std::vector<std::string>>& engines,
                                    std::vector<std::string>& errors);
  /// Whether a container was ever made for this home (a marker the first creation leaves
  /// in it): without one there is nothing a restart need sweep, and starting a daemon
  /// need not run the engine's CLI.
  bool ever_made() const;

  /// Removes every container of this home that no live run uses (any cleanup policy
  /// when `all`, else only those whose policy is terminal: a crash's leftovers).
  /// `busy`: run and group ids some process still runs (their containers stay).
  std::vector<ContainerRecord> cleanup(const std::map<std::string, std::vector<std::string>>& engines, bool all,
                                       const std::set<std::string>& busy, std::vector<std::string>& errors);

  /// The container's name for a managed environment (run or group lifetime).
  static std::string container_name(const core::FrozenEnvironment& environment, const std::string& run_id,
                                    const std::string& group_id);
  /// What identifies the environment's settings (so a changed one is never reused).
  static std::string fingerprint(const core::FrozenEnvironment& environment);

 private:
  /// The environment for one run, its {{tokens}} rendered: the workspace on the host
  /// (`host_root`, or the group container's own when given) and inside, the cwd, the
  /// mounts with the session mounts, the steps.
  struct Resolved {
    core::ContainerSpec spec;
    std::map<std::string, std::string> tokens;
    std::string host_root, inside_root, cwd;
    std::vector<core::Mount> mounts;
  };
  core::Result<Resolved> resolve(const ContainerRequest& request, const std::string& host_root) const;
  static EngineResult run_on_host(const std::vector<std::string>& command, const std::string& cwd,
                                  const std::vector<std::pair<std::string, std::string>>& env,
                                  std::chrono::milliseconds timeout, const std::function<bool()>& cancelled);
  core::Result<ContainerPlacement> acquire_managed(const ContainerRequest& request, std::vector<ContainerAction>& actions);
  core::Result<ContainerPlacement> acquire_existing(const ContainerRequest& request,
                                                    std::vector<ContainerAction>& actions);
  core::Result<void> create(const ContainerEngine& engine, const std::string& name, const Resolved& resolved,
                            const ContainerRequest& request, std::vector<ContainerAction>& actions);
  core::Result<void> run_steps(const ContainerEngine& engine, const std::string& container, const Resolved& resolved,
                               const char* phase, const std::vector<core::ContainerStep>& steps,
                               const ContainerRequest& request, std::vector<ContainerAction>& actions);
  void remove(const ContainerEngine& engine, const std::string& name, const std::string& why,
              std::vector<ContainerAction>& actions);
  std::shared_ptr<std::mutex> lock_for(const std::string& container);

  std::string owner_;
  std::string config_dir_;  // set before any run
  mutable std::mutex mutex_;  // everything below
  std::string agentry_binary_;
  std::string daemon_socket_;
  std::map<std::string, std::shared_ptr<std::mutex>> container_locks_;
  std::map<std::string, std::set<std::string>> users_;      // container → live runs
  std::map<std::string, std::set<std::string>> prepared_;   // existing container → runs whose steps ran
};

}  // namespace agentry::environments

#pragma once
// One container engine (podman or docker), driven through its CLI: the only place that
// knows their command lines. Blocking (process::run_program): callers are on a run's
// blocking lane or a CLI command, never a request worker.

#include "core/container_spec.hpp"
#include "core/mount.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace agentry::environments {

struct EngineResult {
  bool ok = false;
  bool engine_missing = false;  // the engine's program is not on PATH
  int exit_code = -1;
  std::string out;    // stdout
  std::string error;  // what went wrong, with the engine's own words (stderr's first lines)
};

/// A container as `inspect` shows it.
struct ContainerState {
  std::string id;
  std::string name;
  bool running = false;
  std::string status;  // running, exited, created, ...
  int exit_code = 0;
  bool oom_killed = false;
  std::map<std::string, std::string> labels;
  std::vector<core::Mount> mounts;  // binds: host source, container destination
};

class ContainerEngine {
 public:
  /// `engine` is "podman" or "docker"; `engine_args` go before every subcommand.
  ContainerEngine(std::string engine, std::vector<std::string> engine_args);

  const std::string& name() const { return engine_; }
  /// `<engine> [engineArgs] <args...>`
  std::vector<std::string> command(const std::vector<std::string>& args) const;

  /// Runs `<engine> [engineArgs] args...` with `env` added to its environment (values
  /// the engine forwards with `-e NAME`, so they never show on a command line).
  EngineResult run(const std::vector<std::string>& args,
                   const std::vector<std::pair<std::string, std::string>>& env = {},
                   std::chrono::milliseconds timeout = std::chrono::seconds(120),
                   const std::function<bool()>& cancelled = {}) const;

  /// nullopt when no such container; an EngineResult error when the engine failed.
  std::optional<ContainerState> inspect(const std::string& container, EngineResult* failure = nullptr) const;
  /// The containers whose labels include `label` (key=value), running or not.
  std::vector<ContainerState> list(const std::string& label, EngineResult* failure = nullptr) const;
  /// `rm -f`: stops and removes; true when it is gone (or never was).
  EngineResult remove(const std::string& container) const;

 private:
  std::string engine_;
  std::vector<std::string> engine_args_;
};

/// inspect's JSON for one container, as podman and docker both print it.
ContainerState parse_container_state(const boost::json::object& o);

}  // namespace agentry::environments

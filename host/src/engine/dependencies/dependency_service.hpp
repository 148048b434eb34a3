#pragma once
// Dependencies: what a run waits on before it may start. Adding, removing and clearing
// them (while the run is initialized or ready), and, in a serving daemon, starting a
// ready run once everything it waits on has ended success. The start gate itself is
// shared by every start and resume (dependency_checks.hpp, checked in the write that
// opens a session).

#include "core/dependency.hpp"
#include "core/result.hpp"
#include "core/run.hpp"
#include "engine/forward.hpp"
#include "engine/requests.hpp"

#include <memory>
#include <string>
#include <vector>

namespace agentry::engine {

class RunChangeWatcher;

class DependencyService {
 public:
  DependencyService(store::Store& db, events::EventBus& bus, core::ThreadPool& pool, RunStarts& runs);
  /// stop()
  ~DependencyService();
  DependencyService(const DependencyService&) = delete;
  DependencyService& operator=(const DependencyService&) = delete;

  core::Result<core::Run> add(const std::string& run_id, core::Dependency dependency, const Actor& actor);
  core::Result<core::Run> remove(const std::string& run_id, core::DependencyType type, const std::string& target,
                                 const Actor& actor);
  core::Result<core::Run> clear(const std::string& run_id, const Actor& actor);

  /// From now on (a serving daemon), a ready run whose dependencies are all met is
  /// started, once, by the daemon: looked at whenever a run it waits on changes, and
  /// now for every run that has dependencies (the startup sweep). Off in embedded
  /// processes, whose runs would end with them.
  void enable_auto_start();
  /// No more automatic starts; waits for a look in progress. Idempotent.
  void stop();

 private:
  /// After a change of `run_ids`: refreshes the summaries of the runs waiting on them, and
  /// starts those (and the changed runs themselves) that are ready with every dependency
  /// met. On the pool, never on a request worker or the writer
  /// (engine/run_change_watcher.hpp).
  void changed(const std::vector<std::string>& run_ids);
  /// Starts the run when it is ready, not archived, and has dependencies, all met.
  void start_if_met(const std::string& run_id);
  /// Starts a run found due (its session's write checks again).
  void start(const std::string& run_id);

  store::Store& db_;
  events::EventBus& bus_;
  core::ThreadPool& pool_;
  RunStarts& runs_;
  std::unique_ptr<RunChangeWatcher> watcher_;
};

}  // namespace agentry::engine

#pragma once
// Everything that runs agents in this process, built in one place for `agentry serve`
// and the embedded CLI: the store at $AGENTRY_HOME/agentry.db, the backend plugins
// from the default search path, a thread pool for strands and timers, a blocking pool for
// hooks and git (core/blocking_pool.hpp), the event bus, the engine (with this process's
// controller id), the API context and the operations table.

#include "api/api_context.hpp"
#include "api/operations.hpp"
#include "cli/paths.hpp"
#include "cli/store_wakeups.hpp"
#include "core/blocking_pool.hpp"
#include "core/byte_budget.hpp"
#include "core/executor.hpp"
#include "core/metrics.hpp"
#include "core/repeating_task.hpp"
#include "core/result.hpp"
#include "core/settings.hpp"
#include "engine/engine.hpp"
#include "events/event_bus.hpp"
#include "plugin_host/plugin_registry.hpp"
#include "store/store.hpp"

#include <memory>

namespace agentry::cli {

class LocalStack {
 public:
  /// Opens (and migrates) the database and loads the plugins. `info.daemon_instance_id`
  /// is the controller id recorded on the runs this process drives. Failures are
  /// runtime errors (the database cannot be opened).
  /// `per_run_tokens`: auth is on, so each session's agent gets a token of its own.
  static core::Result<std::unique_ptr<LocalStack>> open(const Paths& paths, const core::Settings& settings,
                                                        api::DaemonInfo info, bool per_run_tokens = false);

  LocalStack(const LocalStack&) = delete;
  LocalStack& operator=(const LocalStack&) = delete;
  /// Stops the runs this process drives (they end as aborted), then closes everything.
  ~LocalStack();

  /// The daemon's re-check of runs whose controller went away while it serves
  /// (Engine::reconcile_stale_owners), every `interval` on the pool. Stopped before the
  /// live runs are, by stop_owner_sweep() or the destructor.
  void start_owner_sweep(std::chrono::milliseconds interval);
  void stop_owner_sweep();
  /// The daemon's look for changes other processes committed
  /// (Engine::notice_foreign_changes), every `interval` on the pool, and at once when a
  /// shared store's member wakes it (cli/store_wakeups.hpp); stopped with the sweep.
  void start_foreign_change_watch(std::chrono::milliseconds interval);

  engine::Engine& engine() { return *engine_; }
  api::ApiContext& context() { return *context_; }
  const api::Operations& operations() const { return operations_; }
  store::Store& database() { return *db_; }
  events::EventBus& bus() { return bus_; }
  /// The connections' share of the stream memory, for the servers (api/unsent_memory.hpp).
  const std::shared_ptr<core::ByteBudget>& unsent_memory() const { return unsent_memory_; }

 private:
  LocalStack(const Paths& paths, const core::Settings& settings, std::unique_ptr<store::Store> db,
             api::DaemonInfo info, bool per_run_tokens);

  // Declaration order is destruction order reversed: the engine goes before the pools
  // and bus it uses, the blocking pool (whose last jobs post to the pool's strands and
  // publish on the bus) before those, the plugins after every instance, the database last.
  std::unique_ptr<store::Store> db_;
  plugin_host::PluginRegistry registry_;
  core::ThreadPool pool_;
  // What live runs' queued events, the timeline windows and WebSocket connections' unsent
  // bytes hold together (AGENTRY_STREAM_MEMORY_BYTES); connections at most half of it.
  std::shared_ptr<core::ByteBudget> stream_memory_;
  std::shared_ptr<core::ByteBudget> unsent_memory_;
  core::metrics::CollectorHandle stream_memory_metrics_;
  events::EventBus bus_;
  core::BlockingPool blocking_;
  std::unique_ptr<engine::Engine> engine_;
  std::unique_ptr<core::RepeatingTask> owner_sweep_;
  std::unique_ptr<core::RepeatingTask> foreign_watch_;
  std::unique_ptr<StoreWakeups> wakeups_;  // a shared store's: with the foreign watch
  std::unique_ptr<api::ApiContext> context_;
  api::Operations operations_;
};

}  // namespace agentry::cli

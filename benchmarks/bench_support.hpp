#pragma once
// Shared set-up for benchmarks: a real config dir, a real SQLite file and an engine,
// in a temp directory removed at exit.

#include "core/blocking_pool.hpp"
#include "core/executor.hpp"
#include "engine/engine.hpp"
#include "events/event_bus.hpp"
#include "plugin_host/plugin_registry.hpp"
#include "sqlite_store/sqlite_store.hpp"

#include <filesystem>
#include <memory>
#include <string>

namespace agentry::bench {

class BenchEnvironment {
 public:
  explicit BenchEnvironment(const std::string& name, bool synchronous_full = true);
  ~BenchEnvironment();

  engine::Engine& engine() { return *engine_; }
  store::Store& db() { return *db_; }
  engine::InitRequest request(const std::string& feature) const;
  /// Inserts `count` initialized runs (3 tasks each) in bulk, bypassing definitions.
  void seed_runs(int count, const std::string& cwd_prefix, int distinct_cwds);
  /// Empties every run's frozen_summary_json, as in a store whose rows were written before
  /// rows kept one (sqlite_store's migration 18): listings then read the whole inputs.
  void forget_frozen_summaries();
  const std::filesystem::path& work_dir() const { return work_; }
  /// AGENTRY_HOME and AGENTRY_CONFIG_DIR of a daemon serving this environment's store.
  std::filesystem::path home_dir() const { return root_ / "home"; }
  std::filesystem::path config_dir() const { return root_ / "config"; }
  /// Closes the engine and the store (the files stay until destruction), so that a
  /// daemon may open them.
  void close_store();

 private:
  std::filesystem::path root_;
  std::filesystem::path work_;
  std::unique_ptr<sqlite_store::SqliteStore> db_;
  plugin_host::PluginRegistry plugins_;
  core::ThreadPool pool_{2};
  events::EventBus bus_;
  core::BlockingPool blocking_{4};
  std::unique_ptr<engine::Engine> engine_;
};

}  // namespace agentry::bench

#pragma once
// A real engine over a real SQLite file and a real config directory in a temp dir.

#include "core/blocking_pool.hpp"
#include "core/executor.hpp"
#include "engine/engine.hpp"
#include "engine/schedules/scheduler.hpp"
#include "events/event_bus.hpp"
#include "plugin_host/plugin_registry.hpp"
#include "sqlite_store/sqlite_store.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

namespace agentry::engine::testing {

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  /// Writes `content` to <config>/<relative>, creating directories.
  void write_config(const std::string& relative, const std::string& content);
  /// An InitRequest for the fixture's "worker" agent + "feature" assignment.
  InitRequest feature_request(const std::string& feature = "dark mode");
  core::Run init_run(const InitRequest& request);
  core::Run start_run(const InitRequest& request);
  /// Reopens the database and engine, as a daemon restart would.
  void restart();

  std::filesystem::path root_;
  std::filesystem::path config_dir_;
  std::filesystem::path work_dir_;
  std::unique_ptr<sqlite_store::SqliteStore> db_;
  plugin_host::PluginRegistry plugins_;
  core::ThreadPool pool_{2};
  events::EventBus bus_;
  core::BlockingPool blocking_{4};  // hooks and git; destroyed before the pool and bus
  std::unique_ptr<Engine> engine_;
  Actor actor_{"test"};
  int max_call_depth_ = default_max_call_depth;  // EngineConfig::max_call_depth at the next restart()
  /// EngineConfig::schedules.timers at the next restart() (null: the wall clock).
  std::shared_ptr<TimerSource> schedule_timers_;
  /// EngineConfig::stream_memory at the next restart() (null: no shared limit).
  std::shared_ptr<core::ByteBudget> stream_memory_;
};

}  // namespace agentry::engine::testing

#include "engine_fixture.hpp"

#include <fstream>
#include <random>

#include <unistd.h>

namespace agentry::engine::testing {
namespace fs = std::filesystem;

void EngineTest::SetUp() {
  std::random_device rd;
  root_ = fs::temp_directory_path() / ("agentry-engine-test-" + std::to_string(rd()));
  config_dir_ = root_ / "config";
  work_dir_ = root_ / "work";
  fs::create_directories(work_dir_);
  write_config("agents/worker/agent.md", R"(---
schemaVersion: 1
backend: passive
model: small-model
lockedFields: [model]
---
You are the worker for {{run_id}}.
)");
  write_config("agents/remote/agent.md", R"(---
schemaVersion: 1
backend: codex
---
Remote agent.
)");
  write_config("assignments/feature/assignment.md", R"(---
schemaVersion: 1
message: "Build {{feature}} ({{size}})."
maxRetries: 2
vars:
  feature:
    type: string
    required: true
    sources: [cli, web, parent]
  size:
    type: enum
    values: [small, large]
    default: small
tasks:
  - id: plan
    title: Plan {{feature}}
  - id: build
    title: Build it
    body: Keep it {{size}}.
---
Work in {{cwd}}.
)");
  write_config("assignments/locked/assignment.md", R"(---
schemaVersion: 1
message: Fixed message.
lockedFields: [tasks, message]
tasks:
  - id: only
    title: The only task
---
Locked.
)");
  restart();
}

void EngineTest::TearDown() {
  engine_.reset();
  db_.reset();
  std::error_code ec;
  fs::remove_all(root_, ec);
}

void EngineTest::write_config(const std::string& relative, const std::string& content) {
  auto path = config_dir_ / relative;
  fs::create_directories(path.parent_path());
  std::ofstream(path) << content;
}

InitRequest EngineTest::feature_request(const std::string& feature) {
  InitRequest r;
  r.agent = "worker";
  r.assignment = "feature";
  r.caller_cwd = work_dir_.string();
  r.cli_vars["feature"] = feature;
  return r;
}

core::Run EngineTest::init_run(const InitRequest& request) {
  auto run = engine_->init(request, actor_);
  EXPECT_TRUE(run.ok()) << (run.ok() ? "" : run.error().message);
  return run.ok() ? *run : core::Run{};
}

core::Run EngineTest::start_run(const InitRequest& request) {
  auto run = engine_->start(request, actor_);
  EXPECT_TRUE(run.ok()) << (run.ok() ? "" : run.error().message);
  return run.ok() ? *run : core::Run{};
}

void EngineTest::restart() {
  engine_.reset();
  db_.reset();
  sqlite_store::SqliteOptions options;
  options.synchronous_full = false;  // tests check logic, not power-loss durability
  auto db = sqlite_store::SqliteStore::open(root_ / "home" / "agentry.db", options);
  ASSERT_TRUE(db.ok()) << db.error().message;
  db_ = std::move(*db);
  EngineConfig config{config_dir_, root_ / "home", "daemon-" + std::to_string(::getpid()) + "-test"};
  config.max_call_depth = max_call_depth_;
  config.schedules.timers = schedule_timers_;
  config.stream_memory = stream_memory_;
  engine_ = std::make_unique<Engine>(EngineServices{*db_, plugins_, pool_, bus_, blocking_}, config);
}

}  // namespace agentry::engine::testing

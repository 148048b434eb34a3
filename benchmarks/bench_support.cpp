#include "bench_support.hpp"

#include "core/clock.hpp"
#include "sqlite_store/sqlite.hpp"
#include "store/run_repository.hpp"
#include "store/task_repository.hpp"

#include <atomic>
#include <cstdio>
#include <fstream>
#include <random>

#include <unistd.h>

namespace agentry::bench {
namespace fs = std::filesystem;

BenchEnvironment::BenchEnvironment(const std::string& name, bool synchronous_full) {
  static std::atomic<int> instances{0};
  root_ = fs::temp_directory_path() /
          ("agentry-bench-" + name + "-" + std::to_string(::getpid()) + "-" + std::to_string(instances++));
  fs::remove_all(root_);
  work_ = root_ / "work";
  fs::create_directories(work_);
  fs::create_directories(root_ / "config/agents/worker");
  fs::create_directories(root_ / "config/assignments/feature");
  std::ofstream(root_ / "config/agents/worker/agent.md") << "---\nschemaVersion: 1\nbackend: passive\n---\nYou are the worker.\n";
  std::ofstream(root_ / "config/assignments/feature/assignment.md")
      << "---\nschemaVersion: 1\nmessage: \"Build {{feature}}.\"\nvars:\n  feature:\n    type: string\n    required: true\n"
         "tasks:\n  - id: plan\n    title: Plan {{feature}}\n  - id: build\n    title: Build it\n"
         "  - id: review\n    title: Review it\n---\nWork carefully in {{cwd}}.\n";
  sqlite_store::SqliteOptions options;
  options.synchronous_full = synchronous_full;
  auto db = sqlite_store::SqliteStore::open(root_ / "home/agentry.db", options);
  if (!db) {
    std::fprintf(stderr, "cannot open benchmark database: %s\n", db.error().message.c_str());
    std::abort();
  }
  db_ = std::move(*db);
  engine_ = std::make_unique<engine::Engine>(
      engine::EngineServices{*db_, plugins_, pool_, bus_, blocking_}, engine::EngineConfig{root_ / "config", root_ / "home", "daemon-" + std::to_string(::getpid()) + "-bench"});
}

BenchEnvironment::~BenchEnvironment() {
  close_store();
  std::error_code ec;
  fs::remove_all(root_, ec);
}

void BenchEnvironment::close_store() {
  engine_.reset();
  db_.reset();
}

engine::InitRequest BenchEnvironment::request(const std::string& feature) const {
  engine::InitRequest r;
  r.agent = "worker";
  r.assignment = "feature";
  r.caller_cwd = work_.string();
  r.cli_vars["feature"] = feature;
  return r;
}

void BenchEnvironment::seed_runs(int count, const std::string& cwd_prefix, int distinct_cwds) {
  // One real run gives realistic frozen inputs; the copies differ in id, cwd and time.
  auto model = engine_->init(request("seed"), engine::Actor{"bench"});
  if (!model) std::abort();
  auto tasks = engine_->tasks().list(model->id);
  const std::int64_t base = core::now_ms() - count;
  constexpr int batch = 5000;
  for (int start = 0; start < count; start += batch) {
    auto written = db_->write<bool>([&](store::Transaction& c) -> core::Result<bool> {
      for (int i = start; i < std::min(count, start + batch); ++i) {
        core::Run run = *model;
        char id[16];
        std::snprintf(id, sizeof id, "b%09d", i);
        run.id = id;
        run.run_group_id = id;
        run.cwd = cwd_prefix + std::to_string(i % distinct_cwds);
        run.created_at = run.updated_at = core::format_iso8601(base + i);
        c.runs().insert(run);
        for (auto task : *tasks) {
          task.run_id = run.id;
          c.tasks().insert(task);
        }
      }
      return true;
    });
    if (!written) std::abort();
  }
}

void BenchEnvironment::forget_frozen_summaries() {
  auto c = sqlite_store::Connection::open(root_ / "home/agentry.db", /*read_only=*/false);
  c.exec("UPDATE runs SET frozen_summary_json = NULL");
}

}  // namespace agentry::bench

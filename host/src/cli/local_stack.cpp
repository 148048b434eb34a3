#include "cli/local_stack.hpp"

#include "core/log.hpp"
#include "engine/lineage.hpp"

#include <cstdlib>

namespace agentry::cli {
namespace {

engine::EngineConfig engine_config(const Paths& paths, const std::string& controller_id) {
  engine::EngineConfig config;
  config.config_dir = paths.config_dir;
  config.state_dir = paths.home;
  config.controller_id = controller_id;
  // Agents report on their tasks with this very binary (engine/task_prompt.hpp).
  config.task_prompt.agentry_binary = paths.binary;
  config.task_prompt.config_dir = paths.config_dir;
  if (const char* ms = std::getenv("AGENTRY_INTERRUPT_GRACE_MS"); ms && std::atol(ms) > 0)
    config.interrupt_grace = std::chrono::milliseconds(std::atol(ms));
  if (const char* depth = std::getenv("AGENTRY_MAX_CALL_DEPTH"); depth && *depth) {
    if (auto parsed = engine::parse_max_call_depth(depth)) config.max_call_depth = *parsed;
    else
      core::log_warn("AGENTRY_MAX_CALL_DEPTH is not a whole number from 1 to " +
                         std::to_string(engine::max_call_depth_limit) + "; using " +
                         std::to_string(config.max_call_depth),
                     {{"value", depth}});
  }
  if (const char* sec = std::getenv("AGENTRY_MIN_RECURRENCE_INTERVAL_SEC"); sec && *sec) {
    char* end = nullptr;
    const long value = std::strtol(sec, &end, 10);
    if (end && *end == '\0' && value >= 1 && value <= 366L * 86400)
      config.min_recurrence_interval_sec = static_cast<int>(value);
    else
      core::log_warn("AGENTRY_MIN_RECURRENCE_INTERVAL_SEC is not a whole number of seconds from 1; using " +
                         std::to_string(config.min_recurrence_interval_sec),
                     {{"value", sec}});
  }
  // Child runs' hold on their parent (engine/child_resume_limits.hpp).
  auto whole = [](const char* name, long low, long high) -> std::optional<long> {
    const char* text = std::getenv(name);
    if (!text || !*text) return std::nullopt;
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (end && *end == '\0' && value >= low && value <= high) return value;
    core::log_warn(std::string(name) + " is not a whole number from " + std::to_string(low) + " to " +
                       std::to_string(high) + "; using the default",
                   {{"value", text}});
    return std::nullopt;
  };
  if (auto n = whole("AGENTRY_CHILD_RESUME_LIMIT", 1, 10000)) config.child_limits.max_resumes = static_cast<int>(*n);
  if (auto n = whole("AGENTRY_CHILD_RESUME_WINDOW_SEC", 1, 86400)) config.child_limits.window = std::chrono::seconds(*n);
  if (auto n = whole("AGENTRY_MAX_LIVE_CHILDREN", 1, 100000))
    config.child_limits.max_live_children = static_cast<int>(*n);
  // Names an untrusted project's definitions may read through ${VAR} (engine/project_trust.hpp).
  if (const char* allow = std::getenv("AGENTRY_PROJECT_ENV_ALLOW"); allow && *allow) {
    std::string names = allow;
    for (std::size_t start = 0; start <= names.size();) {
      const std::size_t comma = std::min(names.find(',', start), names.size());
      std::string name = names.substr(start, comma - start);
      name.erase(0, name.find_first_not_of(" \t"));
      name.erase(name.find_last_not_of(" \t") + 1);
      if (!name.empty()) config.project_env_allow.push_back(name);
      start = comma + 1;
    }
  }
  return config;
}

}  // namespace

core::Result<std::unique_ptr<LocalStack>> LocalStack::open(const Paths& paths, api::DaemonInfo info,
                                                       bool per_run_tokens) {
  auto db = store::Database::open(paths.database());
  if (!db) return db.failure();
  return std::unique_ptr<LocalStack>(new LocalStack(paths, std::move(*db), std::move(info), per_run_tokens));
}

LocalStack::LocalStack(const Paths& paths, std::unique_ptr<store::Database> db, api::DaemonInfo info,
                       bool per_run_tokens)
    : db_(std::move(db)), pool_(4) {
  registry_.load_all(plugins::PluginRegistry::default_search_path(paths.config_dir));
  auto config = engine_config(paths, info.daemon_instance_id);
  config.per_run_tokens = per_run_tokens;
  engine_ = std::make_unique<engine::Engine>(engine::EngineServices{*db_, registry_, pool_, bus_}, std::move(config));
  context_ = std::make_unique<api::ApiContext>(api::ApiContext{*engine_, std::move(info), paths.web_dir, ""});
  operations_ = api::make_operations(*context_);
}

LocalStack::~LocalStack() {
  stop_owner_sweep();  // it may take a run over: not while the live runs are being stopped
  if (engine_) engine_->stop_live_runs("agentry is shutting down");
}

void LocalStack::start_owner_sweep(std::chrono::milliseconds interval) {
  stop_owner_sweep();
  owner_sweep_ = std::make_unique<core::RepeatingTask>(pool_, interval, [engine = engine_.get()] {
    if (auto swept = engine->reconcile_stale_owners(); !swept)
      core::log_error("reconciling runs whose controller is gone failed", {{"error", swept.error().message}});
  });
}

void LocalStack::start_foreign_change_watch(std::chrono::milliseconds interval) {
  if (foreign_watch_) foreign_watch_->stop();
  (void)engine_->notice_foreign_changes();  // the first look sets where the next ones start
  foreign_watch_ = std::make_unique<core::RepeatingTask>(pool_, interval, [engine = engine_.get()] {
    if (auto noticed = engine->notice_foreign_changes(); !noticed)
      core::log_error("looking for changes other processes made failed", {{"error", noticed.error().message}});
  });
}

void LocalStack::stop_owner_sweep() {
  if (owner_sweep_) owner_sweep_->stop();
  owner_sweep_.reset();
  if (foreign_watch_) foreign_watch_->stop();
  foreign_watch_.reset();
}

}  // namespace agentry::cli

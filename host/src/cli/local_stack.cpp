#include "cli/local_stack.hpp"

#include "cli/open_store.hpp"
#include "core/log.hpp"
#include "core/metrics.hpp"

namespace agentry::cli {
namespace {

/// The stream memory on /metrics: what is held of it, what connections hold, the limit.
core::metrics::CollectorHandle stream_memory_metrics(std::shared_ptr<core::ByteBudget> whole,
                                                     std::shared_ptr<core::ByteBudget> unsent) {
  return core::metrics::registry().add_collector([whole = std::move(whole), unsent = std::move(unsent)] {
    auto& r = core::metrics::registry();
    r.gauge("agentry_stream_memory_bytes",
            "Stream memory held now: live runs' unwritten events, timeline windows, WebSocket connections' unsent bytes.")
        .set(static_cast<double>(whole->used()));
    r.gauge("agentry_stream_memory_unsent_bytes",
            "Of the stream memory, what WebSocket connections have ready to send and not yet written.")
        .set(static_cast<double>(unsent->used()));
    r.gauge("agentry_stream_memory_limit_bytes", "The stream memory's limit (AGENTRY_STREAM_MEMORY_BYTES).")
        .set(static_cast<double>(whole->limit()));
  });
}

engine::EngineConfig engine_config(const Paths& paths, const core::Settings& settings,
                                   const std::string& controller_id) {
  engine::EngineConfig config;
  config.config_dir = paths.config_dir;
  config.state_dir = paths.home;
  config.blob_dir = paths.blob_dir;
  config.controller_id = controller_id;
  // Agents report on their tasks with this very binary (engine/task_prompt.hpp).
  config.task_prompt.agentry_binary = paths.binary;
  config.task_prompt.config_dir = paths.config_dir;
  config.interrupt_grace = settings.interrupt_grace;
  config.max_call_depth = settings.max_call_depth;
  config.schedules.min_recurrence_interval_sec = settings.min_recurrence_interval_sec;
  config.project_env_allow = settings.project_env_allow;
  config.child_limits.max_resumes = settings.child_resume_limit;
  config.child_limits.window = std::chrono::seconds(settings.child_resume_window_sec);
  config.child_limits.max_live_children = settings.max_live_children;
  config.lease_ttl = settings.lease_ttl;
  config.placement = engine::PlacementSettings{settings.labels, settings.workspace_roots, settings.max_live_runs};
  config.module_hooks.node = settings.node;
  config.module_hooks.timeout_sec = settings.module_hook_timeout_sec;
  if (!paths.binary.empty())
    config.module_hooks.host_script = paths.binary.parent_path().parent_path() / "share" / "agentry" / "hook-host.mjs";
  return config;
}

}  // namespace

core::Result<std::unique_ptr<LocalStack>> LocalStack::open(const Paths& paths, const core::Settings& settings,
                                                       api::DaemonInfo info, bool per_run_tokens) {
  auto db = open_store(paths, settings);
  if (!db) return db.failure();
  return std::unique_ptr<LocalStack>(new LocalStack(paths, settings, std::move(*db), std::move(info), per_run_tokens));
}

LocalStack::LocalStack(const Paths& paths, const core::Settings& settings, std::unique_ptr<store::Store> db,
                       api::DaemonInfo info, bool per_run_tokens)
    : db_(std::move(db)),
      pool_(4),
      stream_memory_(std::make_shared<core::ByteBudget>(static_cast<std::size_t>(settings.stream_memory_bytes))),
      unsent_memory_(std::make_shared<core::ByteBudget>(stream_memory_->limit() / 2, stream_memory_)),
      stream_memory_metrics_(stream_memory_metrics(stream_memory_, unsent_memory_)),
      bus_(stream_memory_),
      blocking_(static_cast<std::size_t>(settings.blocking_threads)) {
  registry_.load_all(plugin_host::PluginRegistry::default_search_path(paths.config_dir, settings.plugin_path));
  auto config = engine_config(paths, settings, info.daemon_instance_id);
  config.per_run_tokens = per_run_tokens;
  config.stream_memory = stream_memory_;
  engine_ = std::make_unique<engine::Engine>(engine::EngineServices{*db_, registry_, pool_, bus_, blocking_},
                                             std::move(config));
  context_ = std::make_unique<api::ApiContext>(api::ApiContext{*engine_, std::move(info), paths.web_dir, ""});
  operations_ = api::make_operations(*context_);
}

LocalStack::~LocalStack() {
  stop_owner_sweep();  // it may take a run over: not while the live runs are being stopped
  if (engine_) engine_->stop_live_runs("agentry is shutting down");
  // A run's write still in flight tells its strand on commit, through the pool: let
  // every write queued so far commit while the pool is there to hear of it.
  if (db_) (void)db_->submit([](store::Transaction&) { return core::ok(); }).get();
}

void LocalStack::start_owner_sweep(std::chrono::milliseconds interval) {
  stop_owner_sweep();
  owner_sweep_ = std::make_unique<core::RepeatingTask>(pool_, interval, [engine = engine_.get()] {
    if (auto swept = engine->reconcile_stale_owners(); !swept)
      core::log_error("reconciling runs whose controller is gone failed", {{"error", swept.error().message}});
    // Wake-ups are hints: a start that waits for a member is looked at here too.
    engine->wake_start_claims();
  });
  engine_->start_claiming();
  engine_->wake_start_claims();  // what waited for a member like this one
}

void LocalStack::start_foreign_change_watch(std::chrono::milliseconds interval) {
  if (foreign_watch_) foreign_watch_->stop();
  (void)engine_->notice_foreign_changes();  // the first look sets where the next ones start
  foreign_watch_ = std::make_unique<core::RepeatingTask>(pool_, interval, [engine = engine_.get()] {
    if (auto noticed = engine->notice_foreign_changes(); !noticed)
      core::log_error("looking for changes other processes made failed", {{"error", noticed.error().message}});
  });
  if (db_->shared()) wakeups_ = std::make_unique<StoreWakeups>(*db_, pool_, *engine_);
}

void LocalStack::stop_owner_sweep() {
  wakeups_.reset();
  if (owner_sweep_) owner_sweep_->stop();
  owner_sweep_.reset();
  if (foreign_watch_) foreign_watch_->stop();
  foreign_watch_.reset();
}

}  // namespace agentry::cli

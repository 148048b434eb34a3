// Engine: the composition of the engine's services, and what happens to all of them
// together (start-up housekeeping, shutdown).

#include "engine/engine.hpp"
#include "definitions/prices.hpp"

#include "core/log.hpp"
#include "engine/leases/run_leases.hpp"
#include "engine/live/run_tokens.hpp"
#include "engine/run_metrics.hpp"
#include "events/timeline_metrics.hpp"
#include "store/run_token_repository.hpp"
#include "store/store.hpp"

namespace agentry::engine {

Engine::Engine(EngineServices services, EngineConfig config)
    : db_(services.db),
      backends_(services.plugins),
      bus_(services.bus),
      pool_(services.pool),
      blocking_(services.blocking),
      config_(std::move(config)),
      live_(LiveRunServices{services.db, services.plugins, services.pool, services.blocking, services.bus,
                            config_.interrupt_grace, {},
                            &config_.task_prompt, config_.per_run_tokens, config_.state_dir,
                            &attachments_, &config_.child_limits,
                            // A run ending frees only room: without a capacity, nothing waits on that.
                            [this] {
                              if (config_.placement.capacity > 0) claims_.wake();
                            },
                            containers_, config_.max_call_depth, config_.stream_memory},
            config_.controller_id),
      schedules_(std::make_unique<ScheduleService>(db_, bus_, pool_, static_cast<RunStarts&>(*this),
                                                   config_.schedules)),
      parent_completion_(std::make_unique<ParentCompletionService>(
          db_, bus_, pool_, backends_, static_cast<RunStarts&>(*this),
          ParentCompletionSettings{config_.controller_id, &config_.task_prompt, config_.child_limits, &placement_})),
      dependencies_(std::make_unique<DependencyService>(db_, bus_, pool_, static_cast<RunStarts&>(*this))) {
  set_lease_ttl(config_.lease_ttl);
  configure_module_hooks(config_.module_hooks);
  containers_->set_config_dir(config_.config_dir.string());
  definitions::refresh_current_prices(config_.config_dir);  // says at start what prices.yaml lacks
  containers_->set_agentry_binary(config_.task_prompt.agentry_binary.empty() ? std::string()
                                                                            : config_.task_prompt.agentry_binary.string());
  lease_keeper_.start();
  metrics_ = collect_run_metrics(db_, live_);
  if (db_.shared()) inbox_.start(lease_times().sweep_every);
  // Live timeline subscribers hear of every timeline write once it has committed.
  db_.set_timeline_listener(
      [&feeds = bus_.timeline()](const std::string& run_id, std::int64_t base, std::vector<core::TimelineEvent>&& events) {
        events::count_timeline_events(events);
        feeds.publish(run_id, base, std::move(events));
      });
  // Tokens of sessions a crash ended are no use to anyone.
  auto stale = db_.write<int>([](store::Transaction& c) -> core::Result<int> {
    return c.run_tokens().remove_stale();
  });
  if (!stale) core::log_warn("cannot clear stale run tokens", {{"error", stale.error().message}});
}

std::optional<std::string> Engine::run_of_token(std::string_view token) { return engine::run_of_token(db_, token); }

Engine::~Engine() {
  schedules_->stop();  // no due start may begin while the live runs are stopped
  stop_live_runs("agentry is shutting down");
  lease_keeper_.stop();
  db_.set_timeline_listener(nullptr);
}

void Engine::set_connect_url(const std::string& url) { live_.set_connect_url(url); }

void Engine::set_daemon_socket(const std::string& path) {
  live_.set_daemon_socket(path);
  containers_->set_daemon_socket(path);
}

void Engine::stop_live_runs(const std::string& reason, bool leave_remote_agents) {
  // A start claimed now would only be stopped again; another member claims it.
  claims_.stop();
  // What other members ask now waits for whoever takes these runs over.
  inbox_.stop();
  // First: a run started now for its dependencies would only be stopped again.
  dependencies_->stop();
  // Hooks running outside a live session are killed now, not waited for: they share
  // the blocking pool with the live runs' steps, which must get their turn to end.
  hook_jobs_.cancel_all();
  // Sessions that end during the stop are delivered by the next startup.
  parent_completion_->stop();
  live_.stop_all(reason, config_.interrupt_grace + std::chrono::seconds(1),
                 leave_remote_agents ? StopCause::daemon_exit : StopCause::shutdown);
  // What is left of their jobs is one write each.
  hook_jobs_.stop();
}

}  // namespace agentry::engine

#include "cli/serve_command.hpp"

#include "api/api_context.hpp"
#include "api/http_server.hpp"
#include "api/operations.hpp"
#include "api/router.hpp"
#include "cli/exit_codes.hpp"
#include "cli/listen_url.hpp"
#include "cli/paths.hpp"
#include "core/clock.hpp"
#include "core/ids.hpp"
#include "core/log.hpp"
#include "core/executor.hpp"
#include "engine/engine.hpp"
#include "events/event_bus.hpp"
#include "plugins/plugin_registry.hpp"
#include "store/database.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include <unistd.h>

namespace agentry::cli {

int run_serve(const ServeOptions& options) {
  if (const char* level = std::getenv("AGENTRY_LOG_LEVEL")) core::set_log_level(level);
  auto url = parse_listen_url(options.listen);
  if (!url) {
    std::cerr << "agentry serve: " << url.error().message << "\n";
    return exit_code::config_error;
  }
  auto paths = resolve_paths();
  if (!paths) {
    std::cerr << "agentry serve: " << paths.error().message << "\n";
    return exit_code::config_error;
  }
  auto db = store::Database::open(paths->database());
  if (!db) {
    std::cerr << "agentry serve: " << db.error().message << "\n";
    return exit_code::runtime_error;
  }

  const long pid = static_cast<long>(::getpid());
  api::DaemonInfo info{core::new_daemon_instance_id(pid), pid, "", AGENTRY_VERSION, core::now_iso8601()};
  plugins::PluginRegistry registry;
  registry.load_all(plugins::PluginRegistry::default_search_path(paths->config_dir));
  core::ThreadPool pool(4);
  events::EventBus bus;
  engine::EngineConfig engine_config{paths->config_dir, paths->home, info.daemon_instance_id};
  if (const char* ms = std::getenv("AGENTRY_INTERRUPT_GRACE_MS"); ms && std::atol(ms) > 0)
    engine_config.interrupt_grace = std::chrono::milliseconds(std::atol(ms));
  engine::Engine engine({**db, registry, pool, bus}, engine_config);
  // Before serving anyone: runs left "running" by a dead controller must not look alive.
  if (auto finalized = engine.reconcile_after_restart(); !finalized) {
    std::cerr << "agentry serve: startup reconciliation failed: " << finalized.error().message << "\n";
    return exit_code::runtime_error;
  }

  api::ApiContext context{engine, info, paths->web_dir, ""};
  if (const char* base = std::getenv("AGENTRY_WEB_BASE_PATH")) context.web_base_path = base;
  const api::Operations operations = api::make_operations(context);
  api::Router router;
  api::add_all_routes(router, context, operations);
  api::ServerLimits limits;
  // For tests and unusual clients; the default suits interactive use.
  if (const char* ms = std::getenv("AGENTRY_HTTP_READ_TIMEOUT_MS"); ms && std::atol(ms) > 0)
    limits.read_timeout = std::chrono::milliseconds(std::atol(ms));
  if (const char* ms = std::getenv("AGENTRY_SSE_HEARTBEAT_MS"); ms && std::atol(ms) > 0)
    limits.sse_heartbeat = std::chrono::milliseconds(std::atol(ms));
  api::HttpServer server(router, limits);
  auto port = server.listen(url->host, url->port);
  if (!port) {
    std::cerr << "agentry serve: " << port.error().message << "\n";
    return exit_code::runtime_error;
  }
  context.daemon.listen_url = url->ws_url(*port);
  core::log_info("daemon started", {{"daemonInstanceId", info.daemon_instance_id},
                                    {"listen", context.daemon.listen_url},
                                    {"home", paths->home.string()},
                                    {"config", paths->config_dir.string()}});
  std::cout << "serving on " << url->ws_url(*port) << "\n"
            << "http api on " << url->http_url(*port) << "/api/" << std::endl;

  int signal = server.run();
  // Runs this daemon drives locally cannot outlive it: interrupt them (they end as
  // aborted) while their results can still be recorded.
  engine.stop_live_runs("agentry is shutting down");
  core::log_info("daemon stopped");
  return signal == SIGINT ? exit_code::cancelled : exit_code::success;
}

}  // namespace agentry::cli

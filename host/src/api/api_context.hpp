#pragma once
// What route handlers need: the engine, the definition roots and facts about this daemon.

#include "engine/engine.hpp"

#include <filesystem>
#include <string>

namespace agentry::api {

struct DaemonInfo {
  std::string daemon_instance_id;
  long pid = 0;
  std::string listen_url;
  std::string version;
  std::string started_at;
};

struct ApiContext {
  engine::Engine& engine;
  DaemonInfo daemon;
  std::filesystem::path web_dir;  // static dashboard files; may not exist
  std::string web_base_path;      // AGENTRY_WEB_BASE_PATH, "" when served at the root
};

class Router;

void add_daemon_routes(Router& router, ApiContext& context);
void add_run_routes(Router& router, ApiContext& context);
void add_task_routes(Router& router, ApiContext& context);
void add_definition_routes(Router& router, ApiContext& context);
void add_history_routes(Router& router, ApiContext& context);
void add_stream_routes(Router& router, ApiContext& context);

/// Every route above, in one router.
void add_all_routes(Router& router, ApiContext& context);

}  // namespace agentry::api

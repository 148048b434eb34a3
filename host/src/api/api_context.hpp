#pragma once
// What route handlers need: the engine, the definition roots and facts about this daemon.

#include "engine/engine.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>
#include <string>

namespace agentry::api {

struct DaemonInfo {
  std::string daemon_instance_id;
  long pid = 0;
  std::string listen_url;
  std::string version;
  std::string started_at;
  std::string socket_url = {};  // unix:///abs/path.sock; empty when the daemon listens on no socket
};

struct ApiContext {
  engine::Engine& engine;
  DaemonInfo daemon;
  std::filesystem::path web_dir;  // static dashboard files; may not exist
  std::string web_base_path;      // AGENTRY_WEB_BASE_PATH, "" when served at the root
};

class Router;
class Operations;

/// The public routes: /app-config.json and the dashboard's static files.
void add_public_routes(Router& router, ApiContext& context);
/// The Server-Sent Events routes.
void add_stream_routes(Router& router, ApiContext& context);
/// GET /api/runs/:runId/browser/frame (browser_routes.cpp).
void add_browser_routes(Router& router, ApiContext& context);

/// PUT/DELETE /api/runs/:runId/schedule, POST .../schedule/enable|disable (schedule_operations.cpp).
void add_schedule_routes(Router& router, const Operations& ops);

/// GET/POST /api/runs/:runId/attachments, DELETE .../:attachmentId, GET .../content
/// (attachment_operations.cpp).
void add_attachment_routes(Router& router, ApiContext& context, const Operations& ops);
/// The body limit of a request whose body the server spools to a file rather than
/// holding it (attachment uploads), or nullopt for every other request.
std::optional<std::uint64_t> spooled_body_limit(std::string_view method, std::string_view path);
/// GET /api/runs/:runId/workspace/raw: a file's bytes (workspace_operations.cpp).
void add_workspace_routes(Router& router, ApiContext& context);

/// POST /api/triggers/:name: a signed webhook delivery (trigger_routes.cpp).
void add_trigger_routes(Router& router, ApiContext& context);

/// Every HTTP route: public ones, the operations' routes, the streams.
/// `context` and `ops` must outlive the router.
void add_all_routes(Router& router, ApiContext& context, const Operations& ops);

}  // namespace agentry::api

#pragma once
// What the compat listener's routes need: the daemon's own API (they are built on its
// operations, never beside them) and the settings of agent-runner's side.

#include "api/api_context.hpp"

#include <filesystem>
#include <string>

namespace agentry::api {
class Operations;
}

namespace agentry::api::compat {

class CompatTimelines;

struct CompatContext {
  ApiContext& api;
  const Operations& native;
  CompatTimelines& timelines;
  std::filesystem::path web_dir;      // AGENTRY_COMPAT_WEB_DIR: agent-runner's built dashboard
  std::string web_base_path;          // "" or "/seg...": normalize_compat_base_path
  std::filesystem::path default_cwd;  // the cwd of a web start that names none
  /// Where RunDetail.workspaceDir points: <home>/compat/runs (a run's own directory under
  /// it is made by whoever first needs it).
  std::filesystem::path workspace_root;
  /// The compat listener's own ws:// URL (their DaemonInfo.listenUrl); set once it listens.
  std::string listen_url;
};

}  // namespace agentry::api::compat

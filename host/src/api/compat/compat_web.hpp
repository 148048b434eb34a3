#pragma once
// The compat listener's public side: /app-config.json, agent-runner's own dashboard
// (its built files, which agentry never ships: AGENTRY_COMPAT_WEB_DIR) and the mount
// its dashboard is told about. Everything here is what that dashboard expects to find.

#include "api/http_message.hpp"
#include "core/result.hpp"

#include <filesystem>
#include <string>

namespace agentry::api::compat {

/// "" (served at the root) or "/seg[/seg...]", segments of letters, digits and '-' only
/// (agent-runner's rule, stricter than AGENTRY_WEB_BASE_PATH's). INVALID_REQUEST naming
/// AGENTRY_COMPAT_WEB_BASE_PATH otherwise.
core::Result<std::string> normalize_compat_base_path(const std::string& raw);

/// {"webBasePath": "/" or the mount}: exactly the one member its dashboard accepts.
HttpResponse app_config_response(const std::string& base_path);

/// Its index.html, told the mount (a script setting the global it reads, and its
/// /assets/ links prefixed); 503 with a page saying how to get the files when `web_dir`
/// holds no dashboard.
HttpResponse dashboard_shell_response(const std::filesystem::path& web_dir, const std::string& base_path);

/// A GET outside /api/: a file of the dashboard, or its shell for a deep link.
HttpResponse dashboard_response(const std::filesystem::path& web_dir, const std::string& base_path,
                                const std::string& path);

}  // namespace agentry::api::compat

#pragma once
// AGENTRY_WEB_BASE_PATH: the external path a reverse proxy mounts the daemon under
// (e.g. "/agentry"). The daemon answers it in /app-config.json, writes it into the
// dashboard's <base href>, and accepts it as a prefix on every HTTP route so a proxy
// may pass paths through unchanged.

#include "core/result.hpp"

#include <string>

namespace agentry::api {

/// "" (served at the root) or "/seg[/seg...]" without a trailing slash. Segments may
/// hold only letters, digits and "-._~": the value is written into HTML, so nothing
/// that could need escaping gets in. INVALID_REQUEST naming the variable otherwise.
core::Result<std::string> normalize_web_base_path(const std::string& raw);

/// Removes `base` from the front of `path` when `path` is `base` or lies under it
/// ("/agentry/api/runs" -> "/api/runs", "/agentry" -> "/"). Other paths are kept.
void strip_web_base_path(const std::string& base, std::string& path);

}  // namespace agentry::api

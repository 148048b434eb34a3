#pragma once
// Serves the dashboard: its static files from one directory, never outside it, and its
// app shell (index.html) for every deep link the single-page app routes itself.

#include "api/http_message.hpp"

#include <filesystem>
#include <string>

namespace agentry::api {

inline constexpr std::size_t max_static_file_bytes = 8 * 1024 * 1024;

/// `encoded_path` is the request path. 404 for anything missing, hidden, outside `root`,
/// or not a regular file. Files under /assets/ (named by their content hash by the
/// build) may be cached for good; anything else is revalidated.
HttpResponse static_file_response(const std::filesystem::path& root, const std::string& encoded_path);

/// index.html with its `<base href="/">` pointed at `web_base_path` + "/", so the app's
/// relative asset and API URLs resolve from any deep link. When the dashboard is not
/// built, a page that says how to build it.
HttpResponse app_shell_response(const std::filesystem::path& root, const std::string& web_base_path);

/// True for a path the app shell answers: not the API, and a last segment with no
/// extension (`/runs/abc/diff`, not `/favicon.ico`).
bool is_app_route(const std::string& path);

}  // namespace agentry::api

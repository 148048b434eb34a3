#include "api/static_files.hpp"

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>

namespace agentry::api {
namespace fs = std::filesystem;
namespace {

std::string content_type_for(const fs::path& file) {
  auto ext = file.extension().string();
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".js" || ext == ".mjs") return "text/javascript; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".json" || ext == ".map") return "application/json";
  if (ext == ".webmanifest") return "application/manifest+json";
  if (ext == ".txt") return "text/plain; charset=utf-8";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  if (ext == ".jpg" || ext == ".jpeg") return "image/jpeg";
  if (ext == ".webp") return "image/webp";
  if (ext == ".ico") return "image/x-icon";
  if (ext == ".woff2") return "font/woff2";
  return "application/octet-stream";
}

HttpResponse not_found(const std::string& path) {
  return error_response(core::ErrorCode::not_found, "no such file: " + path);
}

/// The file `relative` names inside `root`, or nothing when it is missing, hidden, not a
/// regular file, too large, or (through a symlink) outside `root`.
std::optional<fs::path> confined_file(const fs::path& root, const fs::path& relative) {
  for (const auto& part : relative)
    if (part.string().empty() || part.string()[0] == '.') return std::nullopt;
  std::error_code ec;
  auto base = fs::canonical(root, ec);
  if (ec) return std::nullopt;
  auto file = fs::weakly_canonical(base / relative, ec);
  if (ec || !fs::is_regular_file(file, ec)) return std::nullopt;
  auto [root_end, _] = std::mismatch(base.begin(), base.end(), file.begin(), file.end());
  if (root_end != base.end()) return std::nullopt;
  if (fs::file_size(file, ec) > max_static_file_bytes || ec) return std::nullopt;
  return file;
}

std::string read_all(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream body;
  body << in.rdbuf();
  return body.str();
}

// Shown instead of a blank page when the dashboard was never built (no npm, or a
// daemon started without `make run`). Static text only: nothing here comes from input.
constexpr const char* not_built_page = R"(<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>agentry</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem}code,pre{background:#8882;padding:.1rem .3rem;border-radius:4px}</style>
</head><body>
<h1>agentry is running</h1>
<p>The API is up (<a href="api/daemon">api/daemon</a>), but the web dashboard has not been built.</p>
<p>Build it with Node.js and npm, then reload this page:</p>
<pre>make run                      # builds the dashboard, then the daemon
# or, by hand:
cd web &amp;&amp; npm ci &amp;&amp; npm run build   # writes web/dist
AGENTRY_WEB_DIR=$PWD/web/dist agentry serve</pre>
<p>The CLI works without it: <code>agentry list</code>, <code>agentry run</code>, <code>agentry logs</code>.</p>
</body></html>
)";

}  // namespace

HttpResponse static_file_response(const fs::path& root, const std::string& encoded_path) {
  bool ok = true;
  std::string path = percent_decode(encoded_path, false, ok);
  if (!ok || path.find('\0') != std::string::npos) return not_found(encoded_path);
  const fs::path relative = fs::path(path).relative_path();
  if (relative.empty()) return not_found(encoded_path);
  auto file = confined_file(root, relative);
  if (!file) return not_found(encoded_path);
  HttpResponse r;
  r.content_type = content_type_for(*file);
  r.body = read_all(*file);
  const bool hashed = *relative.begin() == "assets";
  r.headers.emplace_back("Cache-Control", hashed ? "public, max-age=31536000, immutable" : "no-cache");
  return r;
}

HttpResponse app_shell_response(const fs::path& root, const std::string& web_base_path) {
  HttpResponse r;
  r.content_type = "text/html; charset=utf-8";
  r.headers.emplace_back("Cache-Control", "no-cache");
  auto index = confined_file(root, "index.html");
  if (!index) {
    r.body = not_built_page;
    return r;
  }
  r.body = read_all(*index);
  // web_base_path holds only [A-Za-z0-9-._~/] (web_base_path.hpp): safe inside the quotes.
  static constexpr std::string_view placeholder = "<base href=\"/\">";
  if (auto at = r.body.find(placeholder); at != std::string::npos)
    r.body.replace(at, placeholder.size(), "<base href=\"" + web_base_path + "/\">");
  return r;
}

bool is_app_route(const std::string& path) {
  if (path == "/api" || path.rfind("/api/", 0) == 0) return false;
  const auto last = path.substr(path.rfind('/') + 1);
  return last.find('.') == std::string::npos;
}

}  // namespace agentry::api

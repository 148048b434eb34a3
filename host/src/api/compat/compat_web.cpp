#include "api/compat/compat_web.hpp"

#include "api/static_files.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <cctype>
#include <fstream>
#include <sstream>

namespace agentry::api::compat {
namespace json = boost::json;
namespace fs = std::filesystem;
namespace {

bool segment_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-'; }

void replace_all(std::string& text, std::string_view from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

// Static text only: nothing here comes from input.
constexpr const char* missing_dashboard_page = R"(<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>agentry (agent-runner compatible)</title></head><body>
<h1>agentry speaks agent-runner's API here</h1>
<p>agent-runner's web dashboard is not installed on this daemon. Build it from its own
repository (<code>npm ci &amp;&amp; npm run build</code>), then restart agentry with
<code>AGENTRY_COMPAT_WEB_DIR=&lt;its checkout&gt;/apps/web/dist</code>.</p>
<p>agentry's own dashboard is on agentry's own port.</p>
</body></html>
)";

}  // namespace

core::Result<std::string> normalize_compat_base_path(const std::string& raw) {
  std::string path = raw;
  while (!path.empty() && std::isspace(static_cast<unsigned char>(path.back()))) path.pop_back();
  while (!path.empty() && std::isspace(static_cast<unsigned char>(path.front()))) path.erase(0, 1);
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path.empty()) return std::string();
  auto refuse = [&raw](const std::string& why) {
    return core::fail(core::ErrorCode::invalid_request,
                      "AGENTRY_COMPAT_WEB_BASE_PATH '" + raw + "' " + why + " (e.g. /agent-runner)");
  };
  if (path.front() != '/') return refuse("must start with '/'");
  std::string normal;
  std::size_t start = 0;
  while (start < path.size()) {
    while (start < path.size() && path[start] == '/') ++start;
    const auto slash = path.find('/', start);
    const std::string segment = path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (segment.empty()) break;
    for (char c : segment)
      if (!segment_char(c)) return refuse("may hold only letters, digits and '-' in each segment");
    normal += "/" + segment;
    if (slash == std::string::npos) break;
    start = slash;
  }
  return normal;
}

HttpResponse app_config_response(const std::string& base_path) {
  return json_response(200, json::object{{"webBasePath", base_path.empty() ? std::string("/") : base_path}});
}

HttpResponse dashboard_shell_response(const fs::path& web_dir, const std::string& base_path) {
  std::error_code ec;
  const fs::path index = web_dir / "index.html";
  HttpResponse r;
  r.content_type = "text/html; charset=utf-8";
  r.headers.emplace_back("Cache-Control", "no-cache");
  if (web_dir.empty() || !fs::is_regular_file(index, ec)) {
    r.status = 503;
    r.body = missing_dashboard_page;
    return r;
  }
  std::ifstream in(index, std::ios::binary);
  std::ostringstream body;
  body << in.rdbuf();
  r.body = body.str();
  if (base_path.empty()) return r;
  // The mount holds only letters, digits, '-' and '/': safe inside a script's string.
  const std::string script =
      "<script>window.__AGENT_RUNNER_WEB_BASE_PATH__=" + json::serialize(json::value(base_path)) + ";</script>";
  const auto head_end = r.body.rfind("</head>");
  r.body.insert(head_end == std::string::npos ? 0 : head_end, script);
  replace_all(r.body, "src=\"/assets/", "src=\"" + base_path + "/assets/");
  replace_all(r.body, "href=\"/assets/", "href=\"" + base_path + "/assets/");
  return r;
}

HttpResponse dashboard_response(const fs::path& web_dir, const std::string& base_path, const std::string& path) {
  if (path == "/" || path == "/index.html" || is_app_route(path)) return dashboard_shell_response(web_dir, base_path);
  return static_file_response(web_dir, path);
}

}  // namespace agentry::api::compat

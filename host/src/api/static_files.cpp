#include "api/static_files.hpp"

#include <fstream>
#include <sstream>

namespace agentry::api {
namespace fs = std::filesystem;
namespace {

std::string content_type_for(const fs::path& file) {
  auto ext = file.extension().string();
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".js" || ext == ".mjs") return "text/javascript; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".json") return "application/json";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  if (ext == ".ico") return "image/x-icon";
  return "application/octet-stream";
}

HttpResponse not_found(const std::string& path) {
  return error_response(core::ErrorCode::not_found, "no such file: " + path);
}

}  // namespace

HttpResponse static_file_response(const fs::path& root, const std::string& encoded_path) {
  bool ok = true;
  std::string path = percent_decode(encoded_path, false, ok);
  if (!ok || path.find('\0') != std::string::npos) return not_found(encoded_path);
  fs::path relative = path == "/" ? fs::path("index.html") : fs::path(path).relative_path();
  for (const auto& part : relative)
    if (part.string().empty() || part.string()[0] == '.') return not_found(encoded_path);
  std::error_code ec;
  auto base = fs::canonical(root, ec);
  if (ec) return not_found(encoded_path);
  auto file = fs::weakly_canonical(base / relative, ec);
  if (ec || !fs::is_regular_file(file, ec)) return not_found(encoded_path);
  // Symlinks inside the web dir must not lead out of it.
  auto [root_end, _] = std::mismatch(base.begin(), base.end(), file.begin(), file.end());
  if (root_end != base.end()) return not_found(encoded_path);
  if (fs::file_size(file, ec) > max_static_file_bytes || ec) return not_found(encoded_path);
  std::ifstream in(file, std::ios::binary);
  std::ostringstream body;
  body << in.rdbuf();
  HttpResponse r;
  r.content_type = content_type_for(file);
  r.body = body.str();
  r.headers.emplace_back("Cache-Control", "no-cache");
  return r;
}

}  // namespace agentry::api

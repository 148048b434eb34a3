#include "api/web_base_path.hpp"

#include <cctype>

namespace agentry::api {
namespace {

bool segment_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' || c == '~';
}

}  // namespace

core::Result<std::string> normalize_web_base_path(const std::string& raw) {
  std::string path = raw;
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path.empty()) return std::string();
  auto refuse = [&raw](const std::string& why) {
    return core::fail(core::ErrorCode::invalid_request,
                      "AGENTRY_WEB_BASE_PATH '" + raw + "' " + why + " (e.g. /agentry)");
  };
  if (path.front() != '/') return refuse("must start with '/'");
  std::size_t start = 1;
  while (start <= path.size()) {
    auto slash = path.find('/', start);
    const std::string segment = path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (segment.empty()) return refuse("has an empty segment");
    if (segment == "." || segment == "..") return refuse("may not contain '.' or '..' segments");
    for (char c : segment)
      if (!segment_char(c)) return refuse("may hold only letters, digits, '-', '.', '_', '~' and '/'");
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return path;
}

void strip_web_base_path(const std::string& base, std::string& path) {
  if (base.empty() || path.compare(0, base.size(), base) != 0) return;
  if (path.size() == base.size()) {
    path = "/";
  } else if (path[base.size()] == '/') {
    path.erase(0, base.size());
  }
}

}  // namespace agentry::api

#include "api/slow_work.hpp"

namespace agentry::api {

bool is_slow_path(std::string_view path) {
  // /api/runs/<id>/workspace/<what> or /api/runs/<id>/ask (still percent-encoded: an id has no '/')
  constexpr std::string_view prefix = "/api/runs/";
  if (path.substr(0, prefix.size()) != prefix) return false;
  const auto slash = path.find('/', prefix.size());
  if (slash == std::string_view::npos) return false;
  const std::string_view rest = path.substr(slash);
  return rest.substr(0, 11) == "/workspace/" || rest == "/ask";
}

bool is_slow_method(std::string_view method) { return method.substr(0, 10) == "workspace." || method == "runs.ask"; }

}  // namespace agentry::api

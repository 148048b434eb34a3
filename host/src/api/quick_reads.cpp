#include "api/quick_reads.hpp"

namespace agentry::api {

bool is_quick_read(std::string_view http_method, std::string_view path) {
  // Still percent-encoded: a run id has no '/', so one segment after the prefix.
  constexpr std::string_view prefix = "/api/runs/";
  if (http_method != "GET" || path.substr(0, prefix.size()) != prefix) return false;
  const std::string_view id = path.substr(prefix.size());
  return !id.empty() && id.find('/') == std::string_view::npos;
}

bool is_quick_method(std::string_view method) { return method == "runs.get"; }

}  // namespace agentry::api

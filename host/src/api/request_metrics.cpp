#include "api/request_metrics.hpp"

#include "core/metrics.hpp"

#include <vector>

namespace agentry::api {
namespace {

namespace m = core::metrics;

std::vector<std::string_view> literal_segments(std::string_view pattern) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start < pattern.size()) {
    auto slash = pattern.find('/', start);
    auto end = slash == std::string_view::npos ? pattern.size() : slash;
    if (end > start) out.push_back(pattern.substr(start, end - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return out;
}

std::string status_class(int status) { return std::to_string(status / 100) + "xx"; }

double seconds_since(std::chrono::steady_clock::time_point started) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

}  // namespace

std::string route_class_of(std::string_view pattern) {
  auto segments = literal_segments(pattern);
  if (segments.empty()) return "root";
  for (auto s : segments)
    if (s == "events") return "events";
  if (segments[0] == "api") {
    if (segments.size() < 2 || segments[1].front() == ':') return "api";
    return std::string(segments[1]);
  }
  return segments[0].front() == ':' ? "other" : std::string(segments[0]);
}

void observe_http_request(const HttpResponse& response, std::chrono::steady_clock::time_point started) {
  const std::string cls = response.route_class.empty() ? "unrouted" : response.route_class;
  auto& r = m::registry();
  r.histogram("agentry_http_request_seconds",
              "Time from a request read to its answer ready (an event stream: to its first byte), by route class.",
              m::latency_buckets(), {{"class", cls}})
      .observe(seconds_since(started));
  r.counter("agentry_http_requests_total", "HTTP requests answered, by route class and status class.",
            {{"class", cls}, {"code", status_class(response.status)}})
      .inc();
}

void observe_ws_call(std::string_view method, bool known, std::chrono::steady_clock::time_point started) {
  std::string cls = "unknown";
  if (known) cls = std::string(method.substr(0, method.find('.')));
  m::registry()
      .histogram("agentry_ws_call_seconds", "Time to answer a WebSocket JSON-RPC call, by method namespace.",
                 m::latency_buckets(), {{"class", cls}})
      .observe(seconds_since(started));
}

}  // namespace agentry::api

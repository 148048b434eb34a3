#pragma once
// Request latency and counts for GET /metrics, by route class: the first literal
// segment of the matched route after /api ("runs", "tasks", ...), "events" for event
// streams, the method's namespace for WebSocket JSON-RPC. Classes come from the routes
// and methods we define, never from the request, so a client cannot grow the series.

#include "api/http_message.hpp"

#include <chrono>
#include <string>
#include <string_view>

namespace agentry::api {

/// The class of a route pattern ("/api/runs/:runId/tasks" -> "runs").
std::string route_class_of(std::string_view pattern);

/// Counts one HTTP request, answered with `response` (its route_class), begun at `started`.
void observe_http_request(const HttpResponse& response, std::chrono::steady_clock::time_point started);

/// Counts one WebSocket JSON-RPC call of a known `method` ("runs.get" -> "runs"); unknown
/// methods count as "unknown".
void observe_ws_call(std::string_view method, bool known, std::chrono::steady_clock::time_point started);

}  // namespace agentry::api

#pragma once
// Requests whose work may take long: the workspace routes (diffs, searches, raw reads)
// and the `workspace.*` methods, and questions to a run's backend (runs.ask). The HTTP server and WebSocket sessions run them on a
// pool of their own, so a large diff never holds one of the request workers
// (workspace_operations.cpp).

#include <string_view>

namespace agentry::api {

/// "/api/runs/<id>/workspace/..." and "/api/runs/<id>/ask" (the path as received, before percent-decoding).
bool is_slow_path(std::string_view path);
/// "workspace.files", "workspace.diff", ..., "runs.ask"
bool is_slow_method(std::string_view method);

}  // namespace agentry::api

#pragma once
// The compat listener's routes: agent-runner's HTTP API (its paths, its answers, its
// error envelope), its app config and its dashboard, on agentry's operations.

#include "api/compat/compat_context.hpp"
#include "api/http_message.hpp"
#include "api/router.hpp"

namespace agentry::api::compat {

/// Every route of the compat listener. `context` must outlive the router.
void add_compat_routes(Router& router, CompatContext& context);

/// Their timeline: GET /api/runs/:runId/timeline and .../events/timeline (compat_streams.cpp).
void add_compat_timeline_routes(Router& router, CompatContext& context);

/// An error answer in our envelope, worded as agent-runner's clients expect:
/// {"error": {"code", "message"}} with its codes and statuses (HttpServer::set_error_format).
HttpResponse compat_error_answer(HttpResponse native);

}  // namespace agentry::api::compat

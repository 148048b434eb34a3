#pragma once
// The compat listener's routes: agent-runner's HTTP API (its paths, its answers, its
// error envelope), its app config and its dashboard, on agentry's operations.

#include "api/compat/compat_context.hpp"
#include "api/http_message.hpp"
#include "api/operations.hpp"
#include "api/router.hpp"

namespace agentry::api::compat {

/// Every route of the compat listener. `context` and `ops` (make_compat_operations)
/// must outlive the router.
void add_compat_routes(Router& router, CompatContext& context, const Operations& ops);

/// Its API routes, each calling one compat method (compat_http_routes.cpp).
void add_compat_api_routes(Router& router, const Operations& ops);

/// Its attachment routes, with its headers (compat_attachments.cpp).
void add_compat_attachment_routes(Router& router, CompatContext& context, const Operations& ops);

/// Their streams: GET /api/runs/:runId/events/timeline (compat_streams.cpp).
void add_compat_stream_routes(Router& router, CompatContext& context);

/// An error answer in our envelope, worded as agent-runner's clients expect:
/// {"error": {"code", "message"}} with its codes and statuses (HttpServer::set_error_format).
HttpResponse compat_error_answer(HttpResponse native);

}  // namespace agentry::api::compat

#pragma once
// The MCP streamable HTTP transport on the daemon's port, at /mcp (and under the web
// base path), behind the same bearer auth and browser guard as /api/:
//   POST /mcp    one JSON-RPC message; a request is answered application/json, a
//                notification or a response 202 with no body. initialize issues the
//                session (Mcp-Session-Id in the answer); every later message must carry
//                it: none is 400, an unknown or ended one 404 (the client initializes
//                again). An MCP-Protocol-Version header must name a supported version.
//   DELETE /mcp  ends the session (204).
//   GET /mcp     405: the server sends nothing unasked, so it opens no stream.
// A session belongs to the credentials that opened it: a per-run token's session is not
// the daemon token's.

#include "api/api_context.hpp"
#include "api/operations.hpp"
#include "api/router.hpp"

#include <string_view>

namespace agentry::api::mcp {

/// Registers POST and DELETE /mcp. `ops` must outlive the router.
void add_mcp_routes(Router& router, ApiContext& context, const Operations& ops);

/// A POST /mcp whose tool may take long (ask_run, read_diff: api/slow_work.hpp's
/// methods), for the server to run on its slow lane. `path` is the request's path.
bool is_slow_mcp_request(std::string_view path, std::string_view body);

}  // namespace agentry::api::mcp

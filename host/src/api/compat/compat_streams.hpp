#pragma once
// agent-runner's live streams and its WebSocket dialect (compat_streams.cpp).

#include "api/compat/compat_context.hpp"
#include "api/event_stream.hpp"
#include "api/run_streams.hpp"
#include "api/websocket_dialect.hpp"

#include <memory>

namespace agentry::api::compat {

/// Their stream for `request` (channels run_summary, run_detail, run_timeline,
/// run_audit), framed for SSE or, with request.websocket, for a notification.
core::Result<std::shared_ptr<EventStream>> open_compat_stream(CompatContext& context, const StreamRequest& request);

/// Their methods (`ops`: make_compat_operations), streams and errors on a WebSocket.
WebSocketDialect compat_websocket_dialect(CompatContext& context, const Operations& ops);

}  // namespace agentry::api::compat

#pragma once
// Helpers for the few routes that are HTTP-only (streams): the run id in the path and
// the query parameters they accept.

#include "api/http_message.hpp"
#include "core/result.hpp"

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

namespace agentry::api {

class EventStream;

/// The ":runId" parameter, or a 400 when it is not a well-formed run id.
core::Result<std::string> run_id_param(const HttpRequest& request);

/// A Server-Sent Events answer fed from `stream`, or the error envelope when it could
/// not be opened (before any event-stream header is sent).
HttpResponse event_stream_response(core::Result<std::shared_ptr<EventStream>> stream);

/// INVALID_REQUEST naming the first query parameter outside `allowed`.
core::Result<void> allow_query(const HttpRequest& request, std::initializer_list<std::string_view> allowed);

}  // namespace agentry::api

#pragma once
// What a client learns of a failure on our side. An INTERNAL error (a bug, a database
// or environment failure) is logged in full, with a request id and what was asked; the
// client gets only a generic message and that id (`details.requestId`, and the
// X-Request-Id header over HTTP), so nothing of the daemon's internals leaks out and a
// user can still find the log line.

#include "api/http_message.hpp"
#include "core/error.hpp"

#include <string>
#include <string_view>

namespace agentry::api {

/// "req_" + random characters.
std::string new_request_id();

/// `error` as a client may see it: unchanged unless INTERNAL; then logged (with `what`,
/// e.g. "POST /api/runs" or "runs.start") and replaced.
core::Error client_error(core::Error error, const std::string& request_id, std::string_view what);

/// The same for an HTTP response: any 5xx body is logged and replaced by the envelope.
HttpResponse client_response(HttpResponse response, const std::string& request_id, std::string_view what);

}  // namespace agentry::api

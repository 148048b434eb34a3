#pragma once
// Our core::Error as agent-runner's clients expect it (docs/design/agent-runner-compat.md
// §2.1 and row A15): HTTP `{error: {code, message}}` with their status per kind (no
// `details`), and JSON-RPC errors -32003 (a known refusal) / -32004 (unexpected) whose
// error object carries `message` only.

#include "core/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>

namespace agentry::api::compat {

struct CompatError {
  int status = 500;
  std::string code;     // their code: INVALID_REQUEST, NOT_FOUND, CONFLICT, INVALID_COMMAND, ...
  std::string message;  // ours, unchanged
};

/// invalid_request → 400 INVALID_REQUEST, not_found → 404 NOT_FOUND, conflict → 409
/// CONFLICT, validation → 422 INVALID_COMMAND, payload_too_large → 422 COMMAND_ERROR,
/// method_not_allowed → 404 NOT_FOUND (their router has no 405), forbidden → 403
/// FORBIDDEN, unauthenticated → 401 UNAUTHENTICATED, unavailable → 503 UNAVAILABLE,
/// internal → 500 INTERNAL_ERROR.
CompatError compat_error(const core::Error& error);

/// The HTTP body `{"error": {"code", "message"}}`.
boost::json::object compat_error_body(const CompatError& error);

/// A JSON-RPC 2.0 error answer: -32004 for internal errors, -32003 for every other kind;
/// `error` is `{code, message}` without `data`.
std::string compat_jsonrpc_error(const boost::json::value& id, const core::Error& error);

}  // namespace agentry::api::compat

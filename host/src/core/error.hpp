#pragma once
// The one error type domain code returns. Every transport maps it to its own
// representation (HTTP status + envelope, JSON-RPC code, CLI exit code) from here.

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace agentry::core {

enum class ErrorCode {
  invalid_request,  // malformed input: bad JSON, unknown keys, wrong types (400)
  unauthenticated,  // missing or wrong credentials (401)
  forbidden,        // known caller, not allowed here: a foreign origin, a path outside its roots (403)
  not_found,        // the named thing does not exist (404)
  conflict,         // illegal for the current state: lifecycle, locked fields (422, as the reference)
  validation,       // well-formed but unacceptable: unknown agent, missing var (422)
  method_not_allowed,  // the path exists under other methods (405)
  payload_too_large,   // body over the limit (413)
  unavailable,         // the daemon cannot take this now: the connection limit (503)
  internal,         // a bug or an environment failure (500)
};

/// Stable wire name, e.g. "NOT_FOUND".
std::string_view error_code_name(ErrorCode code);
int http_status(ErrorCode code);

struct Error {
  ErrorCode code = ErrorCode::internal;
  std::string message;
  boost::json::object details;
};

Error make_error(ErrorCode code, std::string message, boost::json::object details = {});

}  // namespace agentry::core

#include "core/error.hpp"

namespace agentry::core {

std::string_view error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::invalid_request: return "INVALID_REQUEST";
    case ErrorCode::unauthenticated: return "UNAUTHENTICATED";
    case ErrorCode::forbidden: return "FORBIDDEN";
    case ErrorCode::not_found: return "NOT_FOUND";
    case ErrorCode::conflict: return "CONFLICT";
    case ErrorCode::validation: return "VALIDATION_FAILED";
    case ErrorCode::method_not_allowed: return "METHOD_NOT_ALLOWED";
    case ErrorCode::payload_too_large: return "PAYLOAD_TOO_LARGE";
    case ErrorCode::unavailable: return "UNAVAILABLE";
    case ErrorCode::internal: return "INTERNAL";
  }
  return "INTERNAL";
}

int http_status(ErrorCode code) {
  switch (code) {
    case ErrorCode::invalid_request: return 400;
    case ErrorCode::unauthenticated: return 401;
    case ErrorCode::forbidden: return 403;
    case ErrorCode::not_found: return 404;
    case ErrorCode::conflict: return 422;  // the reference answers every known refusal with 422
    case ErrorCode::validation: return 422;
    case ErrorCode::method_not_allowed: return 405;
    case ErrorCode::payload_too_large: return 413;
    case ErrorCode::unavailable: return 503;
    case ErrorCode::internal: return 500;
  }
  return 500;
}

Error make_error(ErrorCode code, std::string message, boost::json::object details) {
  return Error{code, std::move(message), std::move(details)};
}

}  // namespace agentry::core

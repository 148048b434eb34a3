#include "api/compat/compat_errors.hpp"

#include "api/jsonrpc.hpp"

namespace agentry::api::compat {
namespace json = boost::json;
using core::ErrorCode;

CompatError compat_error(const core::Error& error) {
  auto make = [&](int status, const char* code) { return CompatError{status, code, error.message}; };
  switch (error.code) {
    case ErrorCode::invalid_request: return make(400, "INVALID_REQUEST");
    case ErrorCode::unauthenticated: return make(401, "UNAUTHENTICATED");
    case ErrorCode::forbidden: return make(403, "FORBIDDEN");
    case ErrorCode::not_found: return make(404, "NOT_FOUND");
    case ErrorCode::conflict: return make(409, "CONFLICT");
    case ErrorCode::validation: return make(422, "INVALID_COMMAND");
    case ErrorCode::method_not_allowed: return make(404, "NOT_FOUND");
    case ErrorCode::payload_too_large: return make(422, "COMMAND_ERROR");
    case ErrorCode::unavailable: return make(503, "UNAVAILABLE");
    case ErrorCode::internal: return make(500, "INTERNAL_ERROR");
  }
  return make(500, "INTERNAL_ERROR");
}

json::object compat_error_body(const CompatError& error) {
  return {{"error", json::object{{"code", error.code}, {"message", error.message}}}};
}

std::string compat_jsonrpc_error(const json::value& id, const core::Error& error) {
  const int code = error.code == ErrorCode::internal ? jsonrpc_runtime_error : jsonrpc_control_error;
  return jsonrpc_error(id, code, error.message);
}

}  // namespace agentry::api::compat

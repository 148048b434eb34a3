// Row A15: our error kinds as agent-runner's statuses and codes, and its JSON-RPC errors.

#include "api/compat/compat_errors.hpp"

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace agentry::api::compat {
namespace {
namespace json = boost::json;
using core::ErrorCode;

TEST(CompatErrors, EveryKindHasItsStatusAndCode) {
  const struct {
    ErrorCode ours;
    int status;
    const char* code;
  } table[] = {
      {ErrorCode::invalid_request, 400, "INVALID_REQUEST"},
      {ErrorCode::unauthenticated, 401, "UNAUTHENTICATED"},
      {ErrorCode::forbidden, 403, "FORBIDDEN"},
      {ErrorCode::not_found, 404, "NOT_FOUND"},
      {ErrorCode::conflict, 409, "CONFLICT"},
      {ErrorCode::validation, 422, "INVALID_COMMAND"},
      {ErrorCode::method_not_allowed, 404, "NOT_FOUND"},
      {ErrorCode::payload_too_large, 422, "COMMAND_ERROR"},
      {ErrorCode::unavailable, 503, "UNAVAILABLE"},
      {ErrorCode::internal, 500, "INTERNAL_ERROR"},
  };
  for (const auto& row : table) {
    const auto mapped = compat_error(core::make_error(row.ours, "why it failed", {{"field", "x"}}));
    EXPECT_EQ(mapped.status, row.status) << row.code;
    EXPECT_EQ(mapped.code, row.code);
    EXPECT_EQ(mapped.message, "why it failed") << "our message, unchanged";
  }
}

TEST(CompatErrors, TheBodyCarriesCodeAndMessageOnly) {
  const auto body = compat_error_body(compat_error(core::make_error(ErrorCode::conflict, "run is running", {{"a", 1}})));
  EXPECT_EQ(body, (json::object{{"error", json::object{{"code", "CONFLICT"}, {"message", "run is running"}}}}));
}

TEST(CompatErrors, JsonRpcErrorsAreKnownOrUnexpectedWithoutData) {
  const auto known = json::parse(compat_jsonrpc_error(7, core::make_error(ErrorCode::not_found, "no such run", {{"runId", "x"}})));
  EXPECT_EQ(known, (json::object{{"jsonrpc", "2.0"},
                                 {"id", 7},
                                 {"error", json::object{{"code", -32003}, {"message", "no such run"}}}}));
  const auto unexpected = json::parse(compat_jsonrpc_error("a", core::make_error(ErrorCode::internal, "disk full")));
  EXPECT_EQ(unexpected.at("error"), (json::object{{"code", -32004}, {"message", "disk full"}}));
  EXPECT_EQ(unexpected.at("id"), "a");
}

}  // namespace
}  // namespace agentry::api::compat

#include "core/error.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace agentry::core {
namespace {

struct Expected {
  ErrorCode code;
  const char* name;
  int status;
};

constexpr Expected every_code[] = {
    {ErrorCode::invalid_request, "INVALID_REQUEST", 400},
    {ErrorCode::unauthenticated, "UNAUTHENTICATED", 401},
    {ErrorCode::forbidden, "FORBIDDEN", 403},
    {ErrorCode::not_found, "NOT_FOUND", 404},
    {ErrorCode::conflict, "CONFLICT", 422},
    {ErrorCode::validation, "VALIDATION_FAILED", 422},
    {ErrorCode::method_not_allowed, "METHOD_NOT_ALLOWED", 405},
    {ErrorCode::payload_too_large, "PAYLOAD_TOO_LARGE", 413},
    {ErrorCode::unavailable, "UNAVAILABLE", 503},
    {ErrorCode::internal, "INTERNAL", 500},
};

TEST(ErrorCode, EveryCodeHasItsWireNameAndHttpStatus) {
  for (const auto& e : every_code) {
    EXPECT_EQ(error_code_name(e.code), e.name);
    EXPECT_EQ(http_status(e.code), e.status) << e.name;
  }
}

// Names are distinct; statuses too, except that CONFLICT shares 422 with
// VALIDATION_FAILED, as the reference answers every known refusal.
TEST(ErrorCode, NamesAndStatusesAreDistinct) {
  std::set<std::string> names;
  std::set<int> statuses;
  for (const auto& e : every_code) {
    names.emplace(error_code_name(e.code));
    statuses.insert(http_status(e.code));
  }
  EXPECT_EQ(names.size(), std::size(every_code));
  EXPECT_EQ(statuses.size(), std::size(every_code) - 1);
}

TEST(MakeError, KeepsCodeMessageAndDetails) {
  Error e = make_error(ErrorCode::not_found, "no run abc", {{"runId", "abc"}});
  EXPECT_EQ(e.code, ErrorCode::not_found);
  EXPECT_EQ(e.message, "no run abc");
  ASSERT_TRUE(e.details.contains("runId"));
  EXPECT_EQ(e.details.at("runId").as_string(), "abc");
}

TEST(Error, DefaultsToInternal) {
  Error e;
  EXPECT_EQ(e.code, ErrorCode::internal);
  EXPECT_TRUE(e.message.empty());
  EXPECT_TRUE(e.details.empty());
}

}  // namespace
}  // namespace agentry::core

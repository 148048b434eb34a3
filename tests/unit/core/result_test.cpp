#include "core/result.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace agentry::core {
namespace {

Result<int> parse_positive(int v) {
  if (v <= 0) return fail(ErrorCode::validation, "must be positive", {{"value", v}});
  return v;
}

Result<void> check(bool good) {
  if (!good) return fail(make_error(ErrorCode::conflict, "not now"));
  return ok();
}

TEST(Result, HoldsAValue) {
  auto r = parse_positive(3);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(static_cast<bool>(r));
  EXPECT_EQ(r.value(), 3);
  EXPECT_EQ(*r, 3);
}

TEST(Result, HoldsAnErrorWithCodeMessageAndDetails) {
  auto r = parse_positive(-1);
  ASSERT_FALSE(r.ok());
  EXPECT_FALSE(static_cast<bool>(r));
  EXPECT_EQ(r.error().code, ErrorCode::validation);
  EXPECT_EQ(r.error().message, "must be positive");
  EXPECT_EQ(r.error().details.at("value").as_int64(), -1);
}

TEST(Result, FailurePropagatesToAnotherResultType) {
  auto inner = parse_positive(0);
  Result<std::string> outer = inner.failure();
  ASSERT_FALSE(outer.ok());
  EXPECT_EQ(outer.error().code, ErrorCode::validation);
  EXPECT_EQ(outer.error().message, "must be positive");
}

TEST(Result, MovesMoveOnlyValuesOut) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(7);
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, 7);
}

TEST(ResultVoid, OkAndFailure) {
  EXPECT_TRUE(check(true).ok());
  auto bad = check(false);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::conflict);
  EXPECT_EQ(bad.error().message, "not now");
  Result<int> converted = bad.failure();
  ASSERT_FALSE(converted.ok());
  EXPECT_EQ(converted.error().message, "not now");
}

}  // namespace
}  // namespace agentry::core

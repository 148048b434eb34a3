#include "notify/retry_policy.hpp"

#include <gtest/gtest.h>

namespace agentry::notify {
namespace {
using std::chrono::milliseconds;

store::OutboxEntry fresh() {
  store::OutboxEntry e;
  e.id = 1;
  e.next_attempt_ms = 1000;
  return e;
}

TEST(RetryPolicy, ADeliveredAttemptSettlesTheRow) {
  auto e = fresh();
  apply_attempt(e, {true, false, ""}, RetryPolicy{}, 5000, "now");
  EXPECT_EQ(e.state, "delivered");
  EXPECT_EQ(e.attempts, 1);
  EXPECT_EQ(e.delivered_at, "now");
  EXPECT_TRUE(e.last_error.empty());
}

TEST(RetryPolicy, FailuresBackOffThenFailAfterThreeAttempts) {
  RetryPolicy policy;  // 3 attempts, 1 s then 5 s
  auto e = fresh();
  apply_attempt(e, {false, false, "HTTP 500"}, policy, 10'000, "t1");
  EXPECT_EQ(e.state, "pending");
  EXPECT_EQ(e.attempts, 1);
  EXPECT_EQ(e.next_attempt_ms, 11'000);
  EXPECT_EQ(e.last_error, "HTTP 500");
  apply_attempt(e, {false, false, "HTTP 502"}, policy, 20'000, "t2");
  EXPECT_EQ(e.state, "pending");
  EXPECT_EQ(e.next_attempt_ms, 25'000);
  apply_attempt(e, {false, false, "timeout"}, policy, 30'000, "t3");
  EXPECT_EQ(e.state, "failed");
  EXPECT_EQ(e.attempts, 3);
  EXPECT_EQ(e.last_error, "timeout");
  EXPECT_FALSE(e.delivered_at);
}

TEST(RetryPolicy, AFailureThenASuccessIsDelivered) {
  auto e = fresh();
  apply_attempt(e, {false, false, "refused"}, RetryPolicy{}, 0, "t1");
  apply_attempt(e, {true, false, ""}, RetryPolicy{}, 2000, "t2");
  EXPECT_EQ(e.state, "delivered");
  EXPECT_EQ(e.attempts, 2);
  EXPECT_TRUE(e.last_error.empty());
}

TEST(RetryPolicy, APermanentFailureIsNotRetried) {
  auto e = fresh();
  apply_attempt(e, {false, true, "secret not set"}, RetryPolicy{}, 0, "t1");
  EXPECT_EQ(e.state, "failed");
  EXPECT_EQ(e.attempts, 1);
}

TEST(RetryPolicy, TheLastBackoffRepeats) {
  RetryPolicy policy;
  policy.max_attempts = 5;
  policy.backoff = {milliseconds(10), milliseconds(20)};
  EXPECT_EQ(policy.delay_after(1), milliseconds(10));
  EXPECT_EQ(policy.delay_after(2), milliseconds(20));
  EXPECT_EQ(policy.delay_after(4), milliseconds(20));
}

}  // namespace
}  // namespace agentry::notify

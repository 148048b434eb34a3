#pragma once
// How many times a notification is tried and how long to wait in between: the state
// machine of one outbox row. pending --(2xx / exit 0)--> delivered;
// pending --(failure, attempts < max)--> pending, due after backoff[attempts-1];
// pending --(failure, attempts == max, or a permanent failure)--> failed.

#include "store/notification_repository.hpp"

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::notify {

struct RetryPolicy {
  int max_attempts = 3;
  /// The wait after the 1st, 2nd, ... failed attempt; the last entry repeats.
  std::vector<std::chrono::milliseconds> backoff{std::chrono::milliseconds(1000), std::chrono::milliseconds(5000)};

  std::chrono::milliseconds delay_after(int failed_attempts) const;
};

struct AttemptOutcome {
  bool delivered = false;
  bool permanent = false;  // retrying cannot help (the target is misconfigured)
  std::string error;       // empty when delivered
};

/// Records one attempt on `entry`: attempts + 1, and its next state, due time and error.
void apply_attempt(store::OutboxEntry& entry, const AttemptOutcome& outcome, const RetryPolicy& policy,
                   std::int64_t now_ms, const std::string& now_iso);

}  // namespace agentry::notify

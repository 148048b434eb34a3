#include "notify/retry_policy.hpp"

#include <charconv>

namespace agentry::notify {

std::chrono::milliseconds RetryPolicy::delay_after(int failed_attempts) const {
  if (backoff.empty()) return std::chrono::milliseconds(0);
  std::size_t i = failed_attempts <= 1 ? 0 : static_cast<std::size_t>(failed_attempts - 1);
  return backoff[std::min(i, backoff.size() - 1)];
}

void apply_attempt(store::OutboxEntry& entry, const AttemptOutcome& outcome, const RetryPolicy& policy,
                   std::int64_t now_ms, const std::string& now_iso) {
  entry.attempts += 1;
  entry.updated_at = now_iso;
  if (outcome.delivered) {
    entry.state = "delivered";
    entry.delivered_at = now_iso;
    entry.last_error.clear();
    return;
  }
  entry.last_error = outcome.error.empty() ? "delivery failed" : outcome.error;
  if (outcome.permanent || entry.attempts >= std::max(1, policy.max_attempts)) {
    entry.state = "failed";
    return;
  }
  entry.state = "pending";
  entry.next_attempt_ms = now_ms + policy.delay_after(entry.attempts).count();
}

}  // namespace agentry::notify

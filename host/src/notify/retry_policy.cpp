#include "notify/retry_policy.hpp"

#include <charconv>

namespace agentry::notify {

std::chrono::milliseconds RetryPolicy::delay_after(int failed_attempts) const {
  if (backoff.empty()) return std::chrono::milliseconds(0);
  std::size_t i = failed_attempts <= 1 ? 0 : static_cast<std::size_t>(failed_attempts - 1);
  return backoff[std::min(i, backoff.size() - 1)];
}

std::vector<std::chrono::milliseconds> parse_backoff(std::string_view text) {
  std::vector<std::chrono::milliseconds> out;
  while (!text.empty()) {
    auto comma = text.find(',');
    auto item = text.substr(0, comma);
    long long ms = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), ms);
    if (ec != std::errc() || end != item.data() + item.size() || ms < 0 || ms > 24LL * 3600 * 1000)
      return RetryPolicy{}.backoff;
    out.emplace_back(ms);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out.empty() ? RetryPolicy{}.backoff : out;
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

#include "api/trigger_signature.hpp"

#include "crypto/hmac.hpp"

#include <algorithm>
#include <charconv>
#include <cctype>

namespace agentry::api {
namespace {

core::Failure refuse(std::string message) {
  return core::fail(core::ErrorCode::unauthenticated, std::move(message));
}

/// "sha256=<hex>" with the hex in lower case, as we compute it; other spellings (upper
/// case hex) are accepted by lowering them first.
std::string normalized(std::string_view presented) {
  std::string out(presented);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

core::Result<void> check_mac(std::string_view secret, std::string_view signed_text, const std::string* presented,
                             const char* header_name) {
  if (presented == nullptr || presented->empty())
    return refuse(std::string("the delivery is not signed: send the ") + header_name + " header (sha256=<hex HMAC>)");
  const std::string expected = "sha256=" + crypto::hmac_sha256_hex(secret, signed_text);
  if (!crypto::constant_time_equal(normalized(*presented), expected))
    return refuse(std::string("the ") + header_name + " signature does not match the trigger's secret");
  return core::ok();
}

}  // namespace

std::string trigger_signed_text(std::string_view timestamp, std::string_view body) {
  std::string out;
  out.reserve(timestamp.size() + 1 + body.size());
  out.append(timestamp).append(".").append(body);
  return out;
}

core::Result<void> verify_trigger_signature(definitions::TriggerScheme scheme, std::string_view secret,
                                            int replay_window_seconds, const definitions::HeaderLookup& header,
                                            std::string_view body, std::int64_t now_unix_seconds) {
  if (scheme == definitions::TriggerScheme::github) {
    const auto presented = header(github_signature_header);
    return check_mac(secret, body, presented ? &*presented : nullptr, github_signature_header);
  }
  const auto timestamp = header(trigger_timestamp_header);
  if (!timestamp || timestamp->empty())
    return refuse(std::string("the delivery has no ") + trigger_timestamp_header + " header (Unix seconds)");
  std::int64_t sent = 0;
  const char* end = timestamp->data() + timestamp->size();
  auto [at, ec] = std::from_chars(timestamp->data(), end, sent);
  if (ec != std::errc() || at != end)
    return refuse(std::string(trigger_timestamp_header) + " must be Unix seconds, e.g. 1767225600");
  // Checked before the MAC too, but only its verdict is told: a stale request is refused
  // whatever its signature says.
  const std::int64_t skew = sent > now_unix_seconds ? sent - now_unix_seconds : now_unix_seconds - sent;
  const auto presented = header(trigger_signature_header);
  auto mac = check_mac(secret, trigger_signed_text(*timestamp, body), presented ? &*presented : nullptr,
                       trigger_signature_header);
  if (!mac) return mac;
  if (skew > replay_window_seconds)
    return refuse(std::string("the delivery's ") + trigger_timestamp_header + " is " + std::to_string(skew) +
                  " s away from the daemon's clock, outside the trigger's replay window of " +
                  std::to_string(replay_window_seconds) + " s");
  return core::ok();
}

}  // namespace agentry::api

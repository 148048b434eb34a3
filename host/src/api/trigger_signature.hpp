#pragma once
// Checking that an inbound trigger delivery was signed with the trigger's secret
// (definitions/trigger.hpp describes the two schemes). The HMAC is a trigger's only
// authentication, so every refusal is UNAUTHENTICATED and says which check failed,
// never what the right signature would have been. Signatures are compared in constant
// time (crypto/hmac.hpp).

#include "core/result.hpp"
#include "definitions/trigger.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace agentry::api {

/// The headers of the agentry scheme.
inline constexpr const char* trigger_timestamp_header = "X-Agentry-Timestamp";
inline constexpr const char* trigger_signature_header = "X-Agentry-Signature";
/// The header of the github scheme.
inline constexpr const char* github_signature_header = "X-Hub-Signature-256";

/// What the agentry scheme signs: "<timestamp>.<body>".
std::string trigger_signed_text(std::string_view timestamp, std::string_view body);

/// Succeeds when the delivery carries a valid signature under `secret` (and, for the
/// agentry scheme, a timestamp within `replay_window_seconds` of `now_unix_seconds`,
/// either way); UNAUTHENTICATED otherwise. `header` finds a request header by name.
core::Result<void> verify_trigger_signature(definitions::TriggerScheme scheme, std::string_view secret,
                                            int replay_window_seconds, const definitions::HeaderLookup& header,
                                            std::string_view body, std::int64_t now_unix_seconds);

}  // namespace agentry::api

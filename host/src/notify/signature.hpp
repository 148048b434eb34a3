#pragma once
// Webhook signatures: HMAC-SHA256 of the exact request body under the target's secret,
// sent as `X-Agentry-Signature: sha256=<lowercase hex>` (crypto/hmac.hpp computes it).

#include <string>
#include <string_view>

namespace agentry::notify {

/// "sha256=" + HMAC-SHA256(secret, body) in lowercase hex: the X-Agentry-Signature header's value.
std::string signature_header(std::string_view secret, std::string_view body);

}  // namespace agentry::notify

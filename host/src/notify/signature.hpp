#pragma once
// Webhook signatures: HMAC-SHA256 of the exact request body under the target's secret,
// sent as `X-Agentry-Signature: sha256=<lowercase hex>`.

#include <string>
#include <string_view>

namespace agentry::notify {

/// Lowercase hex HMAC-SHA256 of `data` under `key` (OpenSSL).
std::string hmac_sha256_hex(std::string_view key, std::string_view data);

/// "sha256=" + hmac_sha256_hex(secret, body): the X-Agentry-Signature header's value.
std::string signature_header(std::string_view secret, std::string_view body);

}  // namespace agentry::notify

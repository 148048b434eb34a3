#pragma once
// HMAC-SHA256 and a comparison whose time does not depend on where two secrets differ:
// what signs outbound webhooks (notify/signature.hpp) and checks inbound ones and bearer
// tokens (api/trigger_signature.hpp, api/access_policy.hpp).

#include <string>
#include <string_view>

namespace agentry::crypto {

/// Lowercase hex HMAC-SHA256 of `data` under `key` (OpenSSL).
std::string hmac_sha256_hex(std::string_view key, std::string_view data);

/// Equal contents, in time that depends only on the lengths.
bool constant_time_equal(std::string_view a, std::string_view b);

}  // namespace agentry::crypto

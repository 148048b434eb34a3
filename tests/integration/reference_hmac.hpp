#pragma once
// Lowercase hex HMAC-SHA256 computed with OpenSSL, not with the daemon's code: what the
// tests of signed webhooks (outbound) and triggers (inbound) check signatures against.

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdio>
#include <string>

namespace agentry::integration {

inline std::string hmac_hex(const std::string& key, const std::string& data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), mac, &length);
  std::string out;
  char hex[3];
  for (unsigned int i = 0; i < length; ++i) {
    std::snprintf(hex, sizeof hex, "%02x", mac[i]);
    out += hex;
  }
  return out;
}

}  // namespace agentry::integration

#include "notify/signature.hpp"

#include "core/text.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <stdexcept>

namespace agentry::notify {

std::string hmac_sha256_hex(std::string_view key, std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  static const unsigned char empty = 0;
  const auto* k = key.empty() ? &empty : reinterpret_cast<const unsigned char*>(key.data());
  const auto* d = data.empty() ? &empty : reinterpret_cast<const unsigned char*>(data.data());
  if (!HMAC(EVP_sha256(), k, static_cast<int>(key.size()), d, data.size(), mac, &length))
    throw std::runtime_error("HMAC-SHA256 failed");
  return core::lower_hex(mac, length);
}

std::string signature_header(std::string_view secret, std::string_view body) {
  return "sha256=" + hmac_sha256_hex(secret, body);
}

}  // namespace agentry::notify

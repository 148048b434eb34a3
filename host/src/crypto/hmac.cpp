#include "crypto/hmac.hpp"

#include "core/text.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <stdexcept>

namespace agentry::crypto {

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

bool constant_time_equal(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff = static_cast<unsigned char>(diff | (x ^ y));
  }
  return diff == 0;
}

}  // namespace agentry::crypto

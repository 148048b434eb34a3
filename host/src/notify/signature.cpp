#include "notify/signature.hpp"

#include "crypto/hmac.hpp"

namespace agentry::notify {

std::string signature_header(std::string_view secret, std::string_view body) {
  return "sha256=" + crypto::hmac_sha256_hex(secret, body);
}

}  // namespace agentry::notify

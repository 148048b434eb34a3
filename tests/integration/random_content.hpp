#pragma once
// File contents for the attachment tests: reproducible random bytes, and the SHA-256
// the daemon should report for them, computed here independently of the daemon.

#include <openssl/sha.h>

#include <random>
#include <string>

namespace agentry::integration {

inline std::string sha256_hex(const std::string& bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest);
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : digest) {
    out += hex[c >> 4];
    out += hex[c & 0xf];
  }
  return out;
}

inline std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::string out(n, '\0');
  for (auto& c : out) c = static_cast<char>(gen() & 0xff);
  return out;
}

}  // namespace agentry::integration

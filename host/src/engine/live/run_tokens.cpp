#include "engine/live/run_tokens.hpp"

#include "core/clock.hpp"
#include "core/text.hpp"
#include "store/run_token_repository.hpp"
#include "store/store.hpp"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <array>
#include <stdexcept>

namespace agentry::engine {

std::string new_run_token() {
  std::array<unsigned char, 32> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1)
    throw std::runtime_error("the system has no randomness for a run token");
  static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out = "agr_";
  unsigned bits = 0, value = 0;
  for (unsigned char b : bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 6) {
      out += alphabet[(value >> (bits - 6)) & 63];
      bits -= 6;
    }
  }
  if (bits > 0) out += alphabet[(value << (6 - bits)) & 63];
  return out;
}

std::string token_sha256(std::string_view token) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned length = 0;
  if (EVP_Digest(token.data(), token.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed");
  return core::lower_hex(digest.data(), length);
}

core::Result<std::string> issue_run_token(store::Store& db, const std::string& run_id) {
  std::string token = new_run_token();
  const std::string hash = token_sha256(token);
  auto stored = db.write<bool>([&](store::Transaction& c) -> core::Result<bool> {
    c.run_tokens().insert(hash, run_id, core::now_iso8601());
    return true;
  });
  if (!stored) return stored.failure();
  return token;
}

std::optional<std::string> run_of_token(store::Store& db, std::string_view token) {
  if (token.rfind("agr_", 0) != 0) return std::nullopt;
  const std::string hash = token_sha256(token);
  auto run = db.read([&](store::Transaction& c) -> core::Result<std::optional<std::string>> {
    return c.run_tokens().run_of(hash);
  });
  return run ? *run : std::nullopt;
}

}  // namespace agentry::engine

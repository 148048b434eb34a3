// SHA-1 as specified in FIPS 180-4 §6.1; base64 as in RFC 4648 §4.
#include "sha1.hpp"

namespace agentry::codex {

namespace {

uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

void compress(std::array<uint32_t, 5>& h, const uint8_t* block) {
  uint32_t w[80];
  for (int t = 0; t < 16; ++t)
    w[t] = (uint32_t{block[4 * t]} << 24) | (uint32_t{block[4 * t + 1]} << 16) | (uint32_t{block[4 * t + 2]} << 8) |
           uint32_t{block[4 * t + 3]};
  for (int t = 16; t < 80; ++t) w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
  for (int t = 0; t < 80; ++t) {
    uint32_t f, k;
    if (t < 20)
      f = (b & c) | (~b & d), k = 0x5A827999;
    else if (t < 40)
      f = b ^ c ^ d, k = 0x6ED9EBA1;
    else if (t < 60)
      f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDC;
    else
      f = b ^ c ^ d, k = 0xCA62C1D6;
    const uint32_t temp = rotl(a, 5) + f + e + k + w[t];
    e = d;
    d = c;
    c = rotl(b, 30);
    b = a;
    a = temp;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
}

}  // namespace

std::array<uint8_t, 20> sha1(std::string_view data) {
  std::array<uint32_t, 5> h{0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  std::string padded(data);
  const uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
  padded.push_back(static_cast<char>(0x80));
  while (padded.size() % 64 != 56) padded.push_back('\0');
  for (int i = 7; i >= 0; --i) padded.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
  for (std::size_t off = 0; off < padded.size(); off += 64)
    compress(h, reinterpret_cast<const uint8_t*>(padded.data() + off));
  std::array<uint8_t, 20> out{};
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<uint8_t>(h[i] >> (24 - 8 * j));
  return out;
}

std::string base64(std::string_view bytes) {
  static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t n = (uint32_t{static_cast<uint8_t>(bytes[i])} << 16) |
                       (uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8) |
                       uint32_t{static_cast<uint8_t>(bytes[i + 2])};
    for (int s = 18; s >= 0; s -= 6) out.push_back(alphabet[(n >> s) & 63]);
  }
  if (const std::size_t rest = bytes.size() - i; rest > 0) {
    uint32_t n = uint32_t{static_cast<uint8_t>(bytes[i])} << 16;
    if (rest == 2) n |= uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8;
    out.push_back(alphabet[(n >> 18) & 63]);
    out.push_back(alphabet[(n >> 12) & 63]);
    out.push_back(rest == 2 ? alphabet[(n >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

}  // namespace agentry::codex

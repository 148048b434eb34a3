#include "agentry/plugin_common/base64.hpp"

#include <array>
#include <cstdint>

namespace agentry::plugin_common {

namespace {
constexpr std::array<int8_t, 256> make_table() {
  std::array<int8_t, 256> t{};
  for (auto& v : t) v = -1;
  constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (std::size_t i = 0; i < alphabet.size(); ++i) t[static_cast<unsigned char>(alphabet[i])] = static_cast<int8_t>(i);
  return t;
}
constexpr auto kTable = make_table();
}  // namespace

std::optional<std::string> base64_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size() / 4 * 3);
  uint32_t bits = 0;
  int count = 0;
  std::size_t padding = 0;
  for (const char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      ++padding;
      continue;
    }
    if (padding > 0) return std::nullopt;  // data after padding
    const int8_t v = kTable[static_cast<unsigned char>(c)];
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<uint32_t>(v);
    if (++count == 4) {
      out.push_back(static_cast<char>((bits >> 16) & 0xff));
      out.push_back(static_cast<char>((bits >> 8) & 0xff));
      out.push_back(static_cast<char>(bits & 0xff));
      bits = 0;
      count = 0;
    }
  }
  if (count == 1 || padding > 2) return std::nullopt;
  if (count == 2) out.push_back(static_cast<char>((bits >> 4) & 0xff));
  if (count == 3) {
    out.push_back(static_cast<char>((bits >> 10) & 0xff));
    out.push_back(static_cast<char>((bits >> 2) & 0xff));
  }
  return out;
}

}  // namespace agentry::plugin_common

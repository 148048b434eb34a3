#include "core/group_id.hpp"

#include "core/utf8.hpp"

#include <algorithm>

namespace agentry::core {

std::optional<std::string> normalize_group_id(std::string_view text) {
  constexpr std::string_view space = " \t\n\r\f\v";
  const auto first = text.find_first_not_of(space);
  if (first == std::string_view::npos) return std::nullopt;
  text = text.substr(first, text.find_last_not_of(space) - first + 1);
  if (!is_valid_utf8(text)) return std::nullopt;
  std::size_t chars = 0;
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f || c == '\\') return std::nullopt;
    if ((byte & 0xc0) != 0x80) ++chars;  // not a continuation byte: a new character
  }
  if (chars > max_group_id_chars) return std::nullopt;
  // It names a directory (an environment's `hostRoot/<group id>`): no step out of it.
  if (text.front() == '/' || text.back() == '/') return std::nullopt;
  for (std::size_t start = 0; start <= text.size();) {
    const auto end = std::min(text.find('/', start), text.size());
    const auto segment = text.substr(start, end - start);
    if (segment == "." || segment == "..") return std::nullopt;
    start = end + 1;
  }
  return std::string(text);
}

}  // namespace agentry::core

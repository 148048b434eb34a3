#include "core/attachment.hpp"

#include "core/utf8.hpp"

#include <cctype>

namespace agentry::core {

Result<std::string> sanitize_attachment_name(std::string_view raw) {
  if (!is_valid_utf8(raw))
    return fail(ErrorCode::invalid_request, "the attachment name is not valid UTF-8", {{"field", "name"}});
  // A client's path (C:\Users\me\report.pdf, ../../etc/passwd) names the file only.
  if (auto slash = raw.find_last_of("/\\"); slash != std::string_view::npos) raw.remove_prefix(slash + 1);
  std::string name;
  for (unsigned char c : raw) {
    if (c < 0x20 || c == 0x7f || c == '"') continue;  // control characters, and quotes for Content-Disposition
    name += static_cast<char>(c);
  }
  const auto first = name.find_first_not_of(' ');
  if (first == std::string::npos) name.clear();
  else name = name.substr(first, name.find_last_not_of(' ') - first + 1);
  if (name.size() > max_attachment_name_bytes) {
    std::size_t cut = max_attachment_name_bytes;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
    name.resize(cut);
  }
  if (name.empty() || name == "." || name == "..")
    return fail(ErrorCode::invalid_request, "the attachment needs a file name (got '" + std::string(raw) + "')",
                {{"field", "name"}});
  return name;
}

std::string attachment_content_type(std::string_view raw) {
  raw = raw.substr(0, raw.find(';'));
  while (!raw.empty() && raw.back() == ' ') raw.remove_suffix(1);
  while (!raw.empty() && raw.front() == ' ') raw.remove_prefix(1);
  auto token = [](std::string_view part) {
    if (part.empty() || part.size() > 127) return false;
    for (unsigned char c : part)
      if (!(std::isalnum(c) || std::string_view("!#$&-^_.+").find(static_cast<char>(c)) != std::string_view::npos))
        return false;
    return true;
  };
  const auto slash = raw.find('/');
  if (slash == std::string_view::npos || !token(raw.substr(0, slash)) || !token(raw.substr(slash + 1)))
    return "application/octet-stream";
  std::string out(raw);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace agentry::core

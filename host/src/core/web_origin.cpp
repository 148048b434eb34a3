#include "core/web_origin.hpp"

#include "core/text.hpp"

#include <charconv>

namespace agentry::core {
namespace {


bool is_port(std::string_view text) {
  if (text.empty() || text.size() > 5) return false;
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc{} && end == text.data() + text.size() && value <= 65535;
}

}  // namespace

std::string host_name_of(std::string_view header) {
  header = trim_blanks(header);
  if (header.empty()) return {};
  std::string_view name;
  std::string_view port;
  if (header.front() == '[') {
    auto close = header.find(']');
    if (close == std::string_view::npos) return {};
    name = header.substr(1, close - 1);
    auto rest = header.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return {};
      port = rest.substr(1);
    }
    if (name.empty() || name.find_first_not_of("0123456789abcdefABCDEF:.") != std::string_view::npos) return {};
  } else {
    auto colon = header.find(':');
    name = header.substr(0, colon);
    if (colon != std::string_view::npos) port = header.substr(colon + 1);
    if (colon != std::string_view::npos && !is_port(port)) return {};
    if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") !=
                            std::string_view::npos)
      return {};
  }
  if (!port.empty() && !is_port(port)) return {};
  std::string out = ascii_lower(name);
  if (!out.empty() && out.back() == '.') out.pop_back();  // "localhost." is "localhost"
  return out;
}

std::string normalized_origin(std::string_view text) {
  std::string origin = ascii_lower(trim_blanks(text));
  for (std::string_view scheme : {"http://", "https://"}) {
    if (origin.rfind(scheme, 0) != 0) continue;
    std::string_view authority = std::string_view(origin).substr(scheme.size());
    if (authority.empty() || host_name_of(authority).empty()) return {};
    // Default ports are left out, as browsers do.
    const std::string_view default_port = scheme == "http://" ? ":80" : ":443";
    if (authority.size() > default_port.size() &&
        authority.substr(authority.size() - default_port.size()) == default_port &&
        authority[authority.size() - default_port.size() - 1] != ':')
      origin.resize(origin.size() - default_port.size());
    return origin;
  }
  return {};
}

}  // namespace agentry::core

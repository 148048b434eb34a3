#include "core/uri_secrets.hpp"

#include <algorithm>

namespace agentry::core {
namespace {

// Replaces the value after every "password=" up to the next separator of a query
// string ('&') or of a key/value string (whitespace).
void redact_password_settings(std::string& text) {
  static constexpr std::string_view key = "password=";
  for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + key.size())) {
    const auto start = at + key.size();
    const auto end = text.find_first_of("& \t\n", start);
    text.replace(start, (end == std::string::npos ? text.size() : end) - start, "***");
  }
}

}  // namespace

std::string redact_uri(std::string_view uri) {
  std::string text(uri);
  const auto scheme = text.find("://");
  if (scheme != std::string::npos) {
    // The userinfo ends at the authority's last '@' (a password's own '@' must be
    // percent-encoded, but be safe); its password follows the first ':'.
    const auto authority = scheme + 3;
    const auto authority_end = std::min(text.find_first_of("/?", authority), text.size());
    const auto at = text.rfind('@', authority_end);
    if (at != std::string::npos && at >= authority) {
      const auto colon = text.find(':', authority);
      if (colon < at) text.replace(colon + 1, at - colon - 1, "***");
    }
  }
  redact_password_settings(text);
  return text;
}

}  // namespace agentry::core

#pragma once
// Host names and web origins as the browser guard compares them (api/browser_guard.hpp).
// They live in core so that the settings listing them (AGENTRY_ALLOWED_HOSTS,
// AGENTRY_ALLOWED_ORIGINS in core/settings.hpp) are checked, with the very rules the
// guard applies to requests, when the settings are parsed.

#include <string>
#include <string_view>

namespace agentry::core {

/// "Host" without its port, lower case; brackets kept off IPv6 literals. Empty when
/// the header is malformed.
std::string host_name_of(std::string_view host_header);

/// "scheme://host[:port]" in lower case, the scheme's default port left out as browsers
/// do, or empty when `text` is not an http(s) origin.
std::string normalized_origin(std::string_view text);

}  // namespace agentry::core

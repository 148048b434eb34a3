#pragma once
// Connection strings carry passwords; what is shown or logged must not.

#include <string>
#include <string_view>

namespace agentry::core {

/// `uri` with any password replaced by "***" (the userinfo of a URI, password=... of a
/// query string or of a key/value string).
std::string redact_uri(std::string_view uri);

}  // namespace agentry::core

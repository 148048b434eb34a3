#pragma once
// Run-time templating of instructions, messages and task text:
//   {{key}} or {{ key }}  the context value (strings as they are, numbers and booleans
//                         as JSON text, null as nothing)
//   \{{                   a literal "{{"
// Unknown keys are errors, so a typo never silently reaches an agent.

#include "core/result.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace agentry::definitions {

/// Keys are letters, digits, '_', '-' and '.'. VALIDATION_FAILED names every unknown
/// key and lists the available ones (details: { unknownKeys, availableKeys }); a "{{"
/// that is never closed or holds no valid key is an error too.
core::Result<std::string> render_template(std::string_view text, const boost::json::object& context);

}  // namespace agentry::definitions

#pragma once
// Load-time interpolation of environment variables into definition values:
//   ${VAR}            the value; an error when VAR is not set
//   ${VAR:-fallback}  the fallback when VAR is unset or empty
//   ${VAR-fallback}   the fallback only when VAR is unset
//   $${               a literal "${"
// Fallbacks may themselves contain ${...}. It runs on parsed YAML scalars, never on
// raw file text, so a value can never break the YAML quoting around it.

#include "core/result.hpp"
#include "definitions/env.hpp"

#include <string>
#include <string_view>

namespace agentry::definitions {

/// The interpolated text, or a VALIDATION_FAILED error whose message says which
/// variable is missing (details: { variable }) or what is malformed.
core::Result<std::string> interpolate(std::string_view text, const EnvLookup& env);

}  // namespace agentry::definitions

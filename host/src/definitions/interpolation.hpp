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

/// Bounds on what one value may become; definitions may come from someone else's
/// repository (a project's .agentry/).
struct InterpolationLimits {
  std::size_t max_depth = 32;                   // nested ${...:-...} fallbacks
  std::size_t max_output_bytes = 1024 * 1024;  // the value after interpolation
};

/// The interpolated text, or a VALIDATION_FAILED error whose message says which
/// variable is missing (details: { variable }), which one `allow` refuses (details:
/// { variable, reason: "env_not_allowed" }), what is malformed, or which limit the value
/// exceeds. Time and stack are linear in the text's length at any nesting.
core::Result<std::string> interpolate(std::string_view text, const EnvLookup& env,
                                      const InterpolationLimits& limits = {}, const EnvAllow& allow = {});

}  // namespace agentry::definitions

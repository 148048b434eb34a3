#pragma once
// What the fuzz targets share: a check that stays on in every build type (libFuzzer
// treats the abort as a crash and keeps the input), a way to run past a finding that
// is already reported, and the fixed environment the definition targets interpolate from.

#include "definitions/env.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#define FUZZ_CHECK(condition, what)                                                         \
  do {                                                                                      \
    if (!(condition)) {                                                                     \
      std::fprintf(stderr, "%s:%d: invariant broken: %s (%s)\n", __FILE__, __LINE__, what, \
                   #condition);                                                             \
      std::abort();                                                                         \
    }                                                                                       \
  } while (false)

namespace agentry::fuzz {

/// True when AGENTRY_FUZZ_TOLERATE (comma-separated names) lists `issue`: a reported
/// finding whose check should not stop a run that explores past it. Never set by default.
inline bool tolerated(std::string_view issue) {
  static const std::string list = [] {
    const char* value = std::getenv("AGENTRY_FUZZ_TOLERATE");
    return "," + std::string(value ? value : "") + ",";
  }();
  return list.find("," + std::string(issue) + ",") != std::string::npos;
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// The longest value fixed_env() returns, for bounds on what interpolation may produce.
inline constexpr std::size_t longest_env_value = 64;

/// A few set variables (one empty, one at the longest length), everything else unset,
/// so both the value and the fallback paths of ${...} are reachable.
inline definitions::EnvLookup fixed_env() {
  return [](std::string_view name) -> std::optional<std::string> {
    if (name == "HOME") return std::string("/home/agentry");
    if (name == "EMPTY") return std::string();
    if (name == "A") return std::string("a");
    if (name == "NESTED") return std::string("${A}");  // a value is never interpolated again
    if (name == "LONG") return std::string(longest_env_value, 'x');
    return std::nullopt;
  };
}

}  // namespace agentry::fuzz

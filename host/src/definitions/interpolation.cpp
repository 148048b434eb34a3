#include "definitions/interpolation.hpp"

#include <vector>

namespace agentry::definitions {
namespace {

bool is_name_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

core::Failure malformed(std::string message) {
  return core::fail(core::ErrorCode::validation, std::move(message));
}

/// One open "${NAME:-" (or "$${") whose closing '}' has not been seen yet.
struct Open {
  std::string name;   // empty for an escaped "$${": its '}' is literal text
  bool emits = false;  // its text is part of the output
};

}  // namespace

// One pass over the text with an explicit stack instead of recursion: a definition
// file (possibly from a cloned repository) must not be able to overflow the stack or
// take time quadratic in its nesting. Skipped fallbacks are scanned only for braces.
core::Result<std::string> interpolate(std::string_view text, const EnvLookup& env, const InterpolationLimits& limits,
                                      const EnvAllow& allow) {
  std::string out;
  out.reserve(text.size());
  std::vector<Open> open;
  auto emitting = [&] { return open.empty() || open.back().emits; };
  auto append = [&](std::string_view piece) -> bool {
    if (!emitting()) return true;
    if (out.size() + piece.size() > limits.max_output_bytes) return false;
    out.append(piece);
    return true;
  };
  auto too_large = [&] {
    return malformed("the value is longer than " + std::to_string(limits.max_output_bytes) +
                     " bytes after ${...} interpolation");
  };
  auto push = [&](Open entry) -> core::Result<void> {
    if (open.size() >= limits.max_depth)
      return malformed("${...} fallbacks are nested more than " + std::to_string(limits.max_depth) + " deep");
    open.push_back(std::move(entry));
    return core::ok();
  };

  std::size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 3, "$${") == 0) {
      // An escaped "${" still pairs with its own '}': "${A:-$${b}}" falls back to "${b}".
      if (!append("${")) return too_large();
      if (!open.empty())
        if (auto ok = push(Open{"", emitting()}); !ok) return ok.failure();
      i += 3;
      continue;
    }
    if (text[i] == '}' && !open.empty()) {
      const bool literal = open.back().name.empty();
      open.pop_back();
      if (literal && !append("}")) return too_large();
      ++i;
      continue;
    }
    if (text.compare(i, 2, "${") != 0) {
      const std::size_t next = text.find_first_of("$}", i + 1);
      const std::size_t end = next == std::string_view::npos ? text.size() : next;
      if (!append(text.substr(i, end - i))) return too_large();
      i = end;
      continue;
    }
    if (!emitting()) {
      // Inside a fallback that is not used: only its braces matter.
      if (auto ok = push(Open{"(skipped)", false}); !ok) return ok.failure();
      i += 2;
      continue;
    }
    std::size_t j = i + 2;
    if (j >= text.size() || !is_name_start(text[j]))
      return malformed("'${' must be followed by a variable name (write '$${' for a literal '${')");
    while (j < text.size() && is_name_char(text[j])) ++j;
    const std::string name(text.substr(i + 2, j - i - 2));
    // Refused even with a fallback: a file that asks for a secret should say so loudly.
    if (!allow.allows(name))
      return core::fail(core::ErrorCode::validation,
                        "reads the environment variable '" + name + "' of the daemon; " + allow.refusal,
                        {{"variable", name}, {"reason", "env_not_allowed"}});
    const std::optional<std::string> value = env(name);

    if (j < text.size() && text[j] == '}') {
      if (!value)
        return core::fail(core::ErrorCode::validation,
                          "environment variable '" + name + "' is not set; write ${" + name +
                              ":-default} to give it a fallback",
                          {{"variable", name}});
      if (!append(*value)) return too_large();
      i = j + 1;
      continue;
    }
    const bool colon = text.compare(j, 2, ":-") == 0;
    if (!colon && (j >= text.size() || text[j] != '-'))
      return malformed("'${" + name + "' must continue with '}', ':-fallback}' or '-fallback}'");
    const bool use_fallback = !value || (colon && value->empty());
    if (!use_fallback && !append(*value)) return too_large();
    if (auto ok = push(Open{name, use_fallback}); !ok) return ok.failure();
    i = j + (colon ? 2 : 1);
  }
  for (const auto& unclosed : open)  // the outermost: the one a reader looks for
    if (!unclosed.name.empty()) return malformed("'${" + unclosed.name + "' is never closed with '}'");
  return out;
}

}  // namespace agentry::definitions

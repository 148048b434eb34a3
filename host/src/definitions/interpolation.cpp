#include "definitions/interpolation.hpp"

namespace agentry::definitions {
namespace {

bool is_name_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

core::Failure malformed(std::string message) {
  return core::fail(core::ErrorCode::validation, std::move(message));
}

/// Index of the '}' closing a fallback that starts at `from`, skipping nested ${...}
/// and $${...}; npos when there is none.
std::size_t find_closing_brace(std::string_view text, std::size_t from) {
  int depth = 0;
  for (std::size_t i = from; i < text.size(); ++i) {
    if (text.compare(i, 3, "$${") == 0) {
      // An escaped "${" still pairs with its own '}': "${A:-$${b}}" falls back to "${b}".
      ++depth;
      i += 2;
    } else if (text.compare(i, 2, "${") == 0) {
      ++depth;
      ++i;
    } else if (text[i] == '}') {
      if (depth == 0) return i;
      --depth;
    }
  }
  return std::string_view::npos;
}

}  // namespace

core::Result<std::string> interpolate(std::string_view text, const EnvLookup& env) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 3, "$${") == 0) {
      out += "${";
      i += 3;
      continue;
    }
    if (text.compare(i, 2, "${") != 0) {
      out += text[i++];
      continue;
    }
    std::size_t j = i + 2;
    if (j >= text.size() || !is_name_start(text[j])) {
      return malformed("'${' must be followed by a variable name (write '$${' for a literal '${')");
    }
    while (j < text.size() && is_name_char(text[j])) ++j;
    const std::string name(text.substr(i + 2, j - i - 2));
    const std::optional<std::string> value = env(name);

    if (j < text.size() && text[j] == '}') {
      if (!value) {
        return core::fail(core::ErrorCode::validation,
                          "environment variable '" + name + "' is not set; write ${" + name +
                              ":-default} to give it a fallback",
                          {{"variable", name}});
      }
      out += *value;
      i = j + 1;
      continue;
    }

    const bool colon = text.compare(j, 2, ":-") == 0;
    if (!colon && (j >= text.size() || text[j] != '-')) {
      return malformed("'${" + name + "' must continue with '}', ':-fallback}' or '-fallback}'");
    }
    const std::size_t fallback_start = j + (colon ? 2 : 1);
    const std::size_t close = find_closing_brace(text, fallback_start);
    if (close == std::string_view::npos) {
      return malformed("'${" + name + "' is never closed with '}'");
    }
    const bool use_fallback = !value || (colon && value->empty());
    if (use_fallback) {
      auto fallback = interpolate(text.substr(fallback_start, close - fallback_start), env);
      if (!fallback) return fallback.failure();
      out += *fallback;
    } else {
      out += *value;
    }
    i = close + 1;
  }
  return out;
}

}  // namespace agentry::definitions

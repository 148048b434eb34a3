#include "definitions/template.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <charconv>
#include <optional>

namespace agentry::definitions {
namespace {

bool is_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}

bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::string format_double(double value) {
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  if (ec != std::errc()) return boost::json::serialize(boost::json::value(value));
  return std::string(buffer, end);
}

std::string format(const boost::json::value& value) {
  switch (value.kind()) {
    case boost::json::kind::string: return std::string(value.get_string());
    case boost::json::kind::null: return {};
    case boost::json::kind::bool_: return value.get_bool() ? "true" : "false";
    case boost::json::kind::int64: return std::to_string(value.get_int64());
    case boost::json::kind::uint64: return std::to_string(value.get_uint64());
    case boost::json::kind::double_: return format_double(value.get_double());
    default: return boost::json::serialize(value);
  }
}

struct Placeholder {
  std::string_view key;
  std::size_t end;  // just past the closing "}}"
};

/// The placeholder starting at text[at] ("{{"), if it is one: "{{", blanks, a key,
/// blanks, "}}". Scanning stops at the first character that does not fit, so the work
/// is linear in the text however many "{{" it holds.
std::optional<Placeholder> placeholder_at(std::string_view text, std::size_t at) {
  std::size_t i = at + 2;
  while (i < text.size() && is_blank(text[i])) ++i;
  const std::size_t key_start = i;
  while (i < text.size() && is_key_char(text[i])) ++i;
  const std::size_t key_end = i;
  if (key_end == key_start) return std::nullopt;
  while (i < text.size() && is_blank(text[i])) ++i;
  if (text.compare(i, 2, "}}") != 0) return std::nullopt;
  return Placeholder{text.substr(key_start, key_end - key_start), i + 2};
}

void add_once(std::vector<std::string>& keys, std::string_view key) {
  if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.emplace_back(key);
}

/// Walks `text`, calling on_text(piece) for literal text and on_key(key, written) for
/// each placeholder.
template <class OnText, class OnKey>
void scan(std::string_view text, OnText on_text, OnKey on_key) {
  std::size_t i = 0;
  std::size_t literal = 0;  // start of the literal text not yet passed on
  while (i < text.size()) {
    if (text.compare(i, 3, "\\{{") == 0) {
      on_text(text.substr(literal, i - literal));
      on_text("{{");
      i += 3;
      literal = i;
      continue;
    }
    if (text.compare(i, 2, "{{") != 0) {
      ++i;
      continue;
    }
    auto found = placeholder_at(text, i);
    if (!found) {
      ++i;  // not a placeholder: this '{' is text; a placeholder may start at the next one
      continue;
    }
    on_text(text.substr(literal, i - literal));
    on_key(found->key, text.substr(i, found->end - i));
    i = literal = found->end;
  }
  on_text(text.substr(literal));
}

}  // namespace

RenderedText render_template(std::string_view text, const boost::json::object& context) {
  RenderedText out;
  out.text.reserve(text.size());
  scan(
      text, [&](std::string_view piece) { out.text.append(piece); },
      [&](std::string_view key, std::string_view written) {
        if (const auto* value = context.if_contains(key)) {
          out.text += format(*value);
        } else {
          out.text.append(written);
          add_once(out.unknown_keys, key);
        }
      });
  return out;
}

std::vector<std::string> template_keys(std::string_view text) {
  std::vector<std::string> keys;
  scan(
      text, [](std::string_view) {}, [&](std::string_view key, std::string_view) { add_once(keys, key); });
  return keys;
}

const std::vector<std::string>& builtin_template_keys() {
  static const std::vector<std::string> keys{"run_id",    "run_group_id", "cwd",
                                             "config_dir", "state_dir",   "assignment_name", "agent_runner_cmd"};
  return keys;
}

std::string describe_unknown_keys(const std::vector<std::string>& keys, std::vector<std::string> available) {
  std::string names;
  for (const auto& key : keys) names += (names.empty() ? "'" : ", '") + key + "'";
  std::sort(available.begin(), available.end());
  available.erase(std::unique(available.begin(), available.end()), available.end());
  std::string known;
  for (const auto& key : available) known += (known.empty() ? "" : ", ") + key;
  return "unknown template key" + std::string(keys.size() > 1 ? "s " : " ") + names + " left as written" +
         " (known keys: " + (known.empty() ? std::string("none") : known) + "; write \\{{ for literal braces)";
}

}  // namespace agentry::definitions

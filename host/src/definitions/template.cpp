#include "definitions/template.hpp"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <charconv>
#include <vector>

namespace agentry::definitions {
namespace {

bool is_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

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

std::string join_keys(const boost::json::object& context) {
  std::vector<std::string> keys;
  for (const auto& entry : context) keys.emplace_back(entry.key());
  std::sort(keys.begin(), keys.end());
  std::string out;
  for (const auto& key : keys) out += (out.empty() ? "" : ", ") + key;
  return out.empty() ? "(none)" : out;
}

core::Failure syntax_error(std::string message, std::size_t offset) {
  return core::fail(core::ErrorCode::validation,
                    message + " at character " + std::to_string(offset + 1) +
                        " (write \\{{ for a literal '{{')",
                    {{"offset", offset}});
}

}  // namespace

core::Result<std::string> render_template(std::string_view text, const boost::json::object& context) {
  std::string out;
  out.reserve(text.size());
  std::vector<std::string> unknown;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 3, "\\{{") == 0) {
      out += "{{";
      i += 3;
      continue;
    }
    if (text.compare(i, 2, "{{") != 0) {
      out += text[i++];
      continue;
    }
    const std::size_t close = text.find("}}", i + 2);
    if (close == std::string_view::npos) return syntax_error("'{{' is never closed with '}}'", i);
    const std::string_view key = trim(text.substr(i + 2, close - i - 2));
    if (key.empty() || !std::all_of(key.begin(), key.end(), is_key_char)) {
      return syntax_error("'{{" + std::string(text.substr(i + 2, close - i - 2)) +
                              "}}' is not a placeholder: keys use letters, digits, '_', '-', '.'",
                          i);
    }
    if (const auto* value = context.if_contains(key)) {
      out += format(*value);
    } else if (std::find(unknown.begin(), unknown.end(), key) == unknown.end()) {
      unknown.emplace_back(key);
    }
    i = close + 2;
  }
  if (!unknown.empty()) {
    std::string names;
    boost::json::array unknown_json;
    for (const auto& key : unknown) {
      names += (names.empty() ? "'" : ", '") + key + "'";
      unknown_json.emplace_back(key);
    }
    boost::json::array available;
    for (const auto& entry : context) available.emplace_back(entry.key());
    return core::fail(core::ErrorCode::validation,
                      "unknown template key" + std::string(unknown.size() > 1 ? "s " : " ") + names +
                          "; available keys: " + join_keys(context),
                      {{"unknownKeys", std::move(unknown_json)}, {"availableKeys", std::move(available)}});
  }
  return out;
}

}  // namespace agentry::definitions

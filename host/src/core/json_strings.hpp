#pragma once
// Strings and lists of strings to and from JSON, as the stored and shown forms of runs,
// hooks and notify targets write them.

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <vector>

namespace agentry::core {

/// The text, or null when there is none.
inline boost::json::value text_or_null(const std::optional<std::string>& text) {
  return text ? boost::json::value(*text) : boost::json::value(nullptr);
}

inline boost::json::array to_json_strings(const std::vector<std::string>& items) {
  boost::json::array out;
  out.reserve(items.size());
  for (const auto& s : items) out.emplace_back(s);
  return out;
}

/// The strings of a JSON list (other items skipped); empty when `v` is null or not a list.
inline std::vector<std::string> strings_in(const boost::json::value* v) {
  std::vector<std::string> out;
  if (v && v->is_array())
    for (const auto& item : v->as_array())
      if (item.is_string()) out.emplace_back(item.as_string());
  return out;
}

}  // namespace agentry::core

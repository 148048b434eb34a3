#include "definitions/yaml_node.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <charconv>
#include <cmath>
#include <limits>

namespace agentry::definitions {

YamlNode::YamlNode() = default;
YamlNode::YamlNode(const YamlNode&) = default;
YamlNode::YamlNode(YamlNode&&) noexcept = default;
YamlNode& YamlNode::operator=(const YamlNode&) = default;
YamlNode& YamlNode::operator=(YamlNode&&) noexcept = default;
YamlNode::~YamlNode() = default;

const YamlNode* YamlNode::find(std::string_view key) const {
  for (const auto& [name, value] : entries) {
    if (name == key) return &value;
  }
  return nullptr;
}

std::string_view describe_kind(const YamlNode& node) {
  switch (node.kind) {
    case YamlNode::Kind::null: return "empty";
    case YamlNode::Kind::scalar: return "a single value";
    case YamlNode::Kind::sequence: return "a list";
    case YamlNode::Kind::map: return "a map";
  }
  return "unknown";
}

std::optional<bool> yaml_bool(std::string_view text) {
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  return std::nullopt;
}

std::optional<std::int64_t> yaml_int(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  int base = 10;
  bool negative = false;
  if (!text.empty() && text.front() == '-') {
    negative = true;
    text.remove_prefix(1);
  }
  if (text.substr(0, 2) == "0x") {
    base = 16;
    text.remove_prefix(2);
  } else if (text.substr(0, 2) == "0o") {
    base = 8;
    text.remove_prefix(2);
  }
  if (text.empty() || text.front() == '-' || text.front() == '+') return std::nullopt;
  std::uint64_t magnitude = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), magnitude, base);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (negative) {
    if (magnitude > max + 1) return std::nullopt;
    return magnitude == max + 1 ? std::numeric_limits<std::int64_t>::min()
                                : -static_cast<std::int64_t>(magnitude);
  }
  if (magnitude > max) return std::nullopt;
  return static_cast<std::int64_t>(magnitude);
}

std::optional<double> yaml_float(std::string_view text) {
  if (text == ".inf" || text == ".Inf" || text == ".INF" || text == "+.inf") {
    return std::numeric_limits<double>::infinity();
  }
  if (text == "-.inf" || text == "-.Inf" || text == "-.INF") {
    return -std::numeric_limits<double>::infinity();
  }
  if (text == ".nan" || text == ".NaN" || text == ".NAN") return std::numeric_limits<double>::quiet_NaN();
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  // from_chars alone would accept "inf" and "nan", which YAML reads as strings.
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')) {
      return std::nullopt;
    }
  }
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

boost::json::value to_json(const YamlNode& node) {
  switch (node.kind) {
    case YamlNode::Kind::null: return nullptr;
    case YamlNode::Kind::scalar: {
      if (!node.plain) return boost::json::value(node.text);
      if (node.text.empty() || node.text == "~" || node.text == "null" || node.text == "Null" ||
          node.text == "NULL") {
        return nullptr;
      }
      if (auto b = yaml_bool(node.text)) return *b;
      if (auto i = yaml_int(node.text)) return *i;
      // JSON has no infinity or NaN, so those stay text.
      if (auto f = yaml_float(node.text); f && std::isfinite(*f)) return *f;
      return boost::json::value(node.text);
    }
    case YamlNode::Kind::sequence: {
      boost::json::array out;
      for (const auto& item : node.items) out.push_back(to_json(item));
      return out;
    }
    case YamlNode::Kind::map: {
      boost::json::object out;
      for (const auto& [key, value] : node.entries) out[key] = to_json(value);
      return out;
    }
  }
  return nullptr;
}

std::string join_field(std::string_view prefix, std::string_view key) {
  if (prefix.empty()) return std::string(key);
  std::string out(prefix);
  out += '.';
  out += key;
  return out;
}

std::string index_field(std::string_view prefix, std::size_t index) {
  return std::string(prefix) + "[" + std::to_string(index) + "]";
}

}  // namespace agentry::definitions

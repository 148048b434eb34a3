#pragma once
// A parsed YAML document in a shape of our own, so yaml-cpp stays inside one .cpp file.
// Scalars keep their text: whether "5" is a number or a string is decided by the field
// that reads it, which is what YAML users expect (`model: 4` is the string "4").

#include "definitions/env.hpp"
#include "definitions/problem.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentry::definitions {

struct YamlNode {
  enum class Kind { null, scalar, sequence, map };

  // Declared here, defaulted in yaml_node.cpp: YamlNode holds pairs of itself, and
  // clang instantiates implicit constexpr members while it is still incomplete.
  YamlNode();
  YamlNode(const YamlNode&);
  YamlNode(YamlNode&&) noexcept;
  YamlNode& operator=(const YamlNode&);
  YamlNode& operator=(YamlNode&&) noexcept;
  ~YamlNode();

  Kind kind = Kind::null;
  std::string text;    // scalars: the value after ${...} interpolation
  bool plain = false;  // scalars: unquoted and untagged, so its type comes from its text
  int line = 0;        // 1-based line in the file
  std::vector<YamlNode> items;                          // sequences
  std::vector<std::pair<std::string, YamlNode>> entries;  // maps, in file order

  bool is_null() const { return kind == Kind::null; }
  bool is_scalar() const { return kind == Kind::scalar; }
  bool is_sequence() const { return kind == Kind::sequence; }
  bool is_map() const { return kind == Kind::map; }
  /// The value of `key` in a map, or nullptr.
  const YamlNode* find(std::string_view key) const;
};

/// "a string", "a list", "a map", "empty": for messages like "must be a list, not a map".
std::string_view describe_kind(const YamlNode& node);

/// Parses `text` (one YAML document) and interpolates every scalar value with `env`.
/// Problems (syntax errors, duplicate keys, unset variables) go to `diag`, naming the
/// field; `first_line` is the file line where `text` starts. nullopt on a syntax error.
/// Variables `allow` refuses are errors too.
std::optional<YamlNode> parse_yaml(std::string_view text, int first_line, const EnvLookup& env,
                                   Diagnostics& diag, const EnvAllow& allow = {});

// YAML 1.2 core-schema readings of a scalar's text.
std::optional<bool> yaml_bool(std::string_view text);
std::optional<std::int64_t> yaml_int(std::string_view text);
std::optional<double> yaml_float(std::string_view text);

/// The node as JSON: plain scalars become null/bool/number when their text says so,
/// quoted scalars stay strings. Used for values kept as opaque JSON (backendConfig, ...).
boost::json::value to_json(const YamlNode& node);

/// `prefix.key`, or `key` at the top level.
std::string join_field(std::string_view prefix, std::string_view key);
/// `prefix[index]`.
std::string index_field(std::string_view prefix, std::size_t index);

}  // namespace agentry::definitions

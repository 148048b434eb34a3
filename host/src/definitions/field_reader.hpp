#pragma once
// Typed access to the fields of one YAML map, reporting every type error with its
// dotted field path and warning about keys nobody asked for (usually typos).

#include "core/notify_target.hpp"
#include "definitions/problem.hpp"
#include "definitions/yaml_node.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::definitions {

class FieldReader {
 public:
  /// `map` must outlive the reader; `prefix` is the field path of `map` ("" at the top).
  FieldReader(const YamlNode& map, std::string prefix, Diagnostics& diag);

  Diagnostics& diag() { return diag_; }
  /// The full field path of `key`.
  std::string field(std::string_view key) const { return join_field(prefix_, key); }

  /// Marks `key` as known; its node, or nullptr when it is absent or empty (`key:`).
  const YamlNode* take(std::string_view key);

  std::optional<std::string> string(std::string_view key);
  /// Reports "is required" when absent or empty.
  std::string required_string(std::string_view key);
  std::optional<std::int64_t> integer(std::string_view key, std::int64_t min, std::int64_t max);
  std::optional<bool> boolean(std::string_view key);
  std::optional<std::vector<std::string>> string_list(std::string_view key);
  /// The value as opaque JSON (for fields agentry does not interpret).
  std::optional<boost::json::value> json(std::string_view key);

  /// `notify:`: completion notification targets, every problem reported with its field.
  std::vector<core::NotifyTarget> notify_targets(std::string_view key, const std::string& origin);

  /// Warns (not fails) for every key that no accessor took.
  void warn_unknown_keys();
  /// An error for every key that no accessor took (where ignoring one could loosen a
  /// setting, e.g. an environment's confinement), listing the keys the accessors asked for.
  void refuse_unknown_keys();

 private:
  const YamlNode& map_;
  std::string prefix_;
  Diagnostics& diag_;
  std::set<std::string, std::less<>> known_;
};

// The same readings for a node that is not a field of a map (list items, map values).
std::optional<std::string> read_string(const YamlNode& node, const std::string& field,
                                       Diagnostics& diag);
std::optional<std::int64_t> read_integer(const YamlNode& node, const std::string& field,
                                         std::int64_t min, std::int64_t max, Diagnostics& diag);
std::optional<bool> read_boolean(const YamlNode& node, const std::string& field, Diagnostics& diag);
std::optional<std::vector<std::string>> read_string_list(const YamlNode& node,
                                                         const std::string& field,
                                                         Diagnostics& diag);

/// `lockedFields`: names of fields a run's caller may not override; empty entries are errors.
std::vector<std::string> read_locked_fields(FieldReader& reader);

/// Every definition file carries `schemaVersion: 1`; reports it missing or unsupported.
void check_schema_version(FieldReader& reader);

}  // namespace agentry::definitions

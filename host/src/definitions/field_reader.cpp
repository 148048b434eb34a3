#include "definitions/field_reader.hpp"

namespace agentry::definitions {

FieldReader::FieldReader(const YamlNode& map, std::string prefix, Diagnostics& diag)
    : map_(map), prefix_(std::move(prefix)), diag_(diag) {}

const YamlNode* FieldReader::take(std::string_view key) {
  known_.emplace(key);
  const YamlNode* node = map_.find(key);
  if (node == nullptr || node->is_null()) return nullptr;
  // `model: ${MODEL:-}` interpolates to nothing and means "not set", like `model:`.
  if (node->is_scalar() && node->plain && node->text.empty()) return nullptr;
  return node;
}

std::optional<std::string> FieldReader::string(std::string_view key) {
  const YamlNode* node = take(key);
  if (node == nullptr) return std::nullopt;
  return read_string(*node, field(key), diag_);
}

std::string FieldReader::required_string(std::string_view key) {
  const YamlNode* node = take(key);
  if (node == nullptr) {
    diag_.error(field(key), "is required");
    return {};
  }
  auto value = read_string(*node, field(key), diag_);
  if (value && value->empty()) {
    diag_.error(field(key), "must not be empty");
    return {};
  }
  return value.value_or(std::string());
}

std::optional<std::int64_t> FieldReader::integer(std::string_view key, std::int64_t min,
                                                 std::int64_t max) {
  const YamlNode* node = take(key);
  if (node == nullptr) return std::nullopt;
  return read_integer(*node, field(key), min, max, diag_);
}

std::optional<bool> FieldReader::boolean(std::string_view key) {
  const YamlNode* node = take(key);
  if (node == nullptr) return std::nullopt;
  return read_boolean(*node, field(key), diag_);
}

std::optional<std::vector<std::string>> FieldReader::string_list(std::string_view key) {
  const YamlNode* node = take(key);
  if (node == nullptr) return std::nullopt;
  return read_string_list(*node, field(key), diag_);
}

std::optional<boost::json::value> FieldReader::json(std::string_view key) {
  const YamlNode* node = take(key);
  if (node == nullptr) return std::nullopt;
  return to_json(*node);
}

void FieldReader::warn_unknown_keys() {
  for (const auto& [key, value] : map_.entries) {
    if (known_.find(key) == known_.end()) {
      diag_.warn(field(key), "unknown field '" + key + "' is ignored (check its spelling)");
    }
  }
}

void FieldReader::refuse_unknown_keys() {
  std::string known;
  for (const std::string& key : known_) known += (known.empty() ? "" : ", ") + key;
  for (const auto& [key, value] : map_.entries) {
    if (known_.find(key) == known_.end()) {
      diag_.error(field(key), "unknown field '" + key + "' (known: " + known + ")");
    }
  }
}

std::optional<std::string> read_string(const YamlNode& node, const std::string& field,
                                       Diagnostics& diag) {
  if (node.is_scalar()) return node.text;
  diag.error(field, "must be a string, not " + std::string(describe_kind(node)));
  return std::nullopt;
}

std::optional<std::int64_t> read_integer(const YamlNode& node, const std::string& field,
                                         std::int64_t min, std::int64_t max, Diagnostics& diag) {
  const std::string range = std::to_string(min) + " to " + std::to_string(max);
  std::optional<std::int64_t> value;
  if (node.is_scalar()) value = yaml_int(node.text);
  if (!value) {
    diag.error(field, "must be a whole number from " + range +
                          (node.is_scalar() ? ", not '" + node.text + "'"
                                            : ", not " + std::string(describe_kind(node))));
    return std::nullopt;
  }
  if (*value < min || *value > max) {
    diag.error(field, "must be from " + range + ", not " + std::to_string(*value));
    return std::nullopt;
  }
  return value;
}

std::optional<bool> read_boolean(const YamlNode& node, const std::string& field, Diagnostics& diag) {
  std::optional<bool> value;
  if (node.is_scalar()) value = yaml_bool(node.text);
  if (!value) {
    diag.error(field, "must be true or false" +
                          (node.is_scalar() ? ", not '" + node.text + "'"
                                            : ", not " + std::string(describe_kind(node))));
  }
  return value;
}

std::optional<std::vector<std::string>> read_string_list(const YamlNode& node,
                                                         const std::string& field,
                                                         Diagnostics& diag) {
  if (!node.is_sequence()) {
    diag.error(field, "must be a list of strings, not " + std::string(describe_kind(node)));
    return std::nullopt;
  }
  std::vector<std::string> out;
  bool ok = true;
  for (std::size_t i = 0; i < node.items.size(); ++i) {
    auto item = read_string(node.items[i], index_field(field, i), diag);
    if (item) {
      out.push_back(std::move(*item));
    } else {
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return out;
}

std::vector<std::string> read_locked_fields(FieldReader& reader) {
  auto fields = reader.string_list("lockedFields").value_or(std::vector<std::string>{});
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].empty()) reader.diag().error(index_field(reader.field("lockedFields"), i), "must not be empty");
  }
  return fields;
}

void check_schema_version(FieldReader& reader) {
  const YamlNode* node = reader.take("schemaVersion");
  if (node == nullptr) {
    reader.diag().error("schemaVersion", "is required; add 'schemaVersion: 1'");
    return;
  }
  const auto version = node->is_scalar() ? yaml_int(node->text) : std::nullopt;
  if (version != 1) {
    reader.diag().error("schemaVersion",
                        "must be 1, not " + (node->is_scalar() ? "'" + node->text + "'"
                                                                : std::string(describe_kind(*node))) +
                            "; this version of agentry reads schemaVersion 1");
  }
}

}  // namespace agentry::definitions

namespace agentry::definitions {

std::vector<core::NotifyTarget> FieldReader::notify_targets(std::string_view key, const std::string& origin) {
  auto value = json(key);
  if (!value) return {};
  return core::parse_notify_targets(*value, field(key), origin, /*allow_commands=*/true,
                                    [&](const std::string& f, const std::string& message) { diag_.error(f, message); });
}

}  // namespace agentry::definitions

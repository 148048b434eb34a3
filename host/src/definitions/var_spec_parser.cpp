// Reading an assignment's `vars` declarations from YAML.

#include "definitions/env.hpp"
#include "definitions/field_reader.hpp"
#include "definitions/parsers.hpp"

#include <algorithm>

namespace agentry::definitions {
namespace {

/// `sources`, in the order they are tried; [cli, web] when absent.
std::vector<VarSource> read_sources(FieldReader& reader) {
  const YamlNode* node = reader.take("sources");
  if (node == nullptr) return default_var_sources();
  const std::string field = reader.field("sources");
  auto names = read_string_list(*node, field, reader.diag());
  std::vector<VarSource> out;
  if (!names) return out;
  for (std::size_t i = 0; i < names->size(); ++i) {
    const auto source = parse_var_source((*names)[i]);
    if (!source) {
      reader.diag().error(index_field(field, i), "'" + (*names)[i] + "' is not a source; use cli, web, env or parent");
    } else if (std::find(out.begin(), out.end(), *source) == out.end()) {
      out.push_back(*source);
    }
  }
  return out;
}

/// The default as a value of the var's type. String-like types take the scalar's text
/// as written (`default: 010` stays "010"); numbers and booleans are read from it.
void read_default(FieldReader& reader, VarSpec& spec) {
  const YamlNode* node = reader.take("default");
  if (node == nullptr) return;
  const std::string field = reader.field("default");
  if (!node->is_scalar()) {
    reader.diag().error(field, "must be a single value, not " + std::string(describe_kind(*node)));
    return;
  }
  boost::json::value raw = (spec.type == VarType::string || spec.type == VarType::enumeration)
                               ? boost::json::value(node->text)
                               : to_json(*node);
  if (spec.type == VarType::boolean && raw.is_string()) {
    // A quoted "true" is still meant as true; leave other text to the check below.
    if (auto b = yaml_bool(node->text)) raw = *b;
  }
  auto coerced = coerce_var_value(spec, raw, true);
  if (!coerced) {
    reader.diag().error(field, "does not match type " + std::string(to_string(spec.type)) + ": it " +
                                   coerced.error().message);
    return;
  }
  spec.default_value = std::move(coerced).value();
}

/// `env`, or `envName` as agent-runner spells it: the variable the env source reads.
void read_env_name(FieldReader& reader, VarSpec& spec) {
  Diagnostics& diag = reader.diag();
  const auto env = reader.string("env");
  const auto env_name = reader.string("envName");
  if (env && env_name && *env != *env_name) {
    diag.error(reader.field("envName"), "is '" + *env_name + "' but 'env' is '" + *env +
                                            "'; they are the same setting, keep one of them");
    return;
  }
  const auto& value = env ? env : env_name;
  if (!value) return;
  if (!is_env_name(*value)) {
    diag.error(reader.field(env ? "env" : "envName"), "'" + *value + "' is not an environment variable name");
    return;
  }
  spec.env = *value;
}

std::optional<VarSpec> read_var_spec(const std::string& name, const YamlNode& node,
                                     const std::string& field, Diagnostics& diag) {
  VarSpec spec;
  spec.name = name;
  if (node.is_null()) return spec;  // `name:` alone: an optional string the caller may give
  if (!node.is_map()) {
    diag.error(field, "must be a map like { type: string, required: true }, not " +
                          std::string(describe_kind(node)));
    return std::nullopt;
  }
  FieldReader reader(node, field, diag);
  if (auto type = reader.string("type")) {
    if (auto parsed = parse_var_type(*type)) {
      spec.type = *parsed;
    } else {
      diag.error(reader.field("type"), "'" + *type + "' is not a var type; use string, number, boolean or enum");
    }
  }
  spec.required = reader.boolean("required").value_or(false);
  if (auto required_at = reader.string("requiredAt")) {
    if (*required_at == "prepare") spec.required_at_prepare = true;
    else if (*required_at != "initial")
      diag.error(reader.field("requiredAt"), "'" + *required_at + "' is not initial or prepare");
  }
  spec.sources = read_sources(reader);
  spec.description = reader.string("description").value_or("");
  read_env_name(reader, spec);
  const YamlNode* values = reader.take("values");
  if (spec.type == VarType::enumeration) {
    if (values == nullptr) {
      diag.error(reader.field("values"), "is required for an enum: the list of allowed values");
    } else if (auto list = read_string_list(*values, reader.field("values"), diag)) {
      if (list->empty()) diag.error(reader.field("values"), "must list at least one value");
      spec.values = std::move(*list);
    }
  } else if (values != nullptr) {
    diag.error(reader.field("values"), "is only allowed when type is enum");
  }
  read_default(reader, spec);
  reader.warn_unknown_keys();
  return spec;
}

}  // namespace

std::vector<VarSpec> read_var_specs(const YamlNode& node, const std::string& field, Diagnostics& diag) {
  std::vector<VarSpec> out;
  if (!node.is_map()) {
    diag.error(field, "must be a map of var name to declaration, not " + std::string(describe_kind(node)));
    return out;
  }
  for (const auto& [name, declaration] : node.entries) {
    const std::string var_field = join_field(field, name);
    if (!is_valid_var_name(name)) {
      diag.error(var_field, "'" + name + "' is not a var name: use letters, digits and '_', not starting with a digit");
      continue;
    }
    if (auto spec = read_var_spec(name, declaration, var_field, diag)) out.push_back(std::move(*spec));
  }
  return out;
}

}  // namespace agentry::definitions

// VarSpec <-> JSON, so a run can freeze its assignment's declarations and resolve
// them again on reconfigure without re-reading (possibly edited) files.

#include "definitions/problem.hpp"
#include "definitions/vars.hpp"

#include <boost/json/array.hpp>

namespace agentry::definitions {

boost::json::object to_json(const VarSpec& spec) {
  boost::json::object out;
  out["type"] = to_string(spec.type);
  out["required"] = spec.required;
  out["requiredAt"] = spec.required_at_prepare ? "prepare" : "initial";
  boost::json::array sources;
  for (const VarSource source : spec.sources) sources.emplace_back(to_string(source));
  out["sources"] = std::move(sources);
  if (spec.default_value) out["default"] = *spec.default_value;
  if (spec.type == VarType::enumeration) {
    boost::json::array values;
    for (const auto& value : spec.values) values.emplace_back(value);
    out["values"] = std::move(values);
  }
  if (!spec.description.empty()) out["description"] = spec.description;
  out["env"] = spec.env_name();
  out["envName"] = spec.env_name();
  return out;
}

boost::json::object var_specs_to_json(const std::vector<VarSpec>& specs) {
  boost::json::object out;
  for (const auto& spec : specs) out[spec.name] = to_json(spec);
  return out;
}

namespace {

/// Reads one frozen spec; problems name the field "vars.<name>.<key>".
std::optional<VarSpec> spec_from_json(std::string name, const boost::json::value& json,
                                      std::vector<Problem>& problems) {
  const std::string field = "vars." + name;
  auto problem = [&](const std::string& key, std::string message) {
    problems.push_back(Problem{"", key.empty() ? field : field + "." + key, std::move(message)});
  };
  const auto* object = json.if_object();
  if (object == nullptr) {
    problem("", "must be an object");
    return std::nullopt;
  }
  VarSpec spec;
  spec.name = std::move(name);
  const std::size_t before = problems.size();

  const auto* type = object->if_contains("type");
  const auto parsed_type = (type != nullptr && type->is_string())
                               ? parse_var_type(type->get_string())
                               : std::optional<VarType>(VarType::string);
  if (!parsed_type) {
    problem("type", "must be string, number, boolean or enum");
  } else {
    spec.type = *parsed_type;
  }
  if (const auto* required = object->if_contains("required")) {
    if (required->is_bool()) {
      spec.required = required->get_bool();
    } else {
      problem("required", "must be true or false");
    }
  }
  if (const auto* required_at = object->if_contains("requiredAt"); required_at && !required_at->is_null()) {
    if (required_at->is_string() && (required_at->get_string() == "prepare" || required_at->get_string() == "initial"))
      spec.required_at_prepare = required_at->get_string() == "prepare";
    else
      problem("requiredAt", "must be initial or prepare");
  }
  if (const auto* sources = object->if_contains("sources")) {
    spec.sources.clear();
    if (!sources->is_array()) problem("sources", "must be a list");
    for (const auto& item : sources->is_array() ? sources->get_array() : boost::json::array()) {
      const auto source = item.is_string() ? parse_var_source(item.get_string()) : std::nullopt;
      if (source) {
        spec.sources.push_back(*source);
      } else {
        problem("sources", "entries must be cli, web, env or parent");
      }
    }
  }
  if (const auto* values = object->if_contains("values"); values != nullptr && values->is_array()) {
    for (const auto& item : values->get_array()) {
      if (item.is_string()) spec.values.emplace_back(item.get_string());
    }
  }
  if (const auto* description = object->if_contains("description"); description && description->is_string()) {
    spec.description = std::string(description->get_string());
  }
  for (const char* key : {"envName", "env"}) {
    if (const auto* env = object->if_contains(key); env && env->is_string()) spec.env = std::string(env->get_string());
  }
  if (const auto* default_value = object->if_contains("default"); default_value && !default_value->is_null()) {
    auto coerced = coerce_var_value(spec, *default_value, true);
    if (coerced) {
      spec.default_value = std::move(coerced).value();
    } else {
      problem("default", coerced.error().message);
    }
  }
  if (problems.size() != before) return std::nullopt;
  return spec;
}

}  // namespace

core::Result<std::vector<VarSpec>> var_specs_from_json(const boost::json::object& json) {
  std::vector<Problem> problems;
  std::vector<VarSpec> specs;
  for (const auto& [key, value] : json) {
    if (auto spec = spec_from_json(std::string(key), value, problems)) specs.push_back(std::move(*spec));
  }
  if (!problems.empty()) return core::fail(validation_error(problems));
  return specs;
}

}  // namespace agentry::definitions

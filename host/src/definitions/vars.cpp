#include "definitions/vars.hpp"

#include "definitions/problem.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace agentry::definitions {
namespace {

std::string_view json_kind(const boost::json::value& value) {
  switch (value.kind()) {
    case boost::json::kind::null: return "null";
    case boost::json::kind::bool_: return "a boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
    case boost::json::kind::double_: return "a number";
    case boost::json::kind::string: return "a string";
    case boost::json::kind::array: return "a list";
    case boost::json::kind::object: return "an object";
  }
  return "unknown";
}

core::Failure bad_value(std::string message) {
  return core::fail(core::ErrorCode::validation, std::move(message));
}

std::string shown(const boost::json::value& value) {
  if (value.is_string()) return "'" + std::string(value.get_string()) + "'";
  return std::string(json_kind(value));
}

/// A string that is nothing but a number: "42", "-1.5", "1e3". No hex, no blanks.
std::optional<boost::json::value> parse_number(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::int64_t integer = 0;
  auto [int_end, int_ec] = std::from_chars(text.data(), text.data() + text.size(), integer);
  if (int_ec == std::errc() && int_end == text.data() + text.size()) return integer;
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')) {
      return std::nullopt;
    }
  }
  double real = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), real);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(real)) {
    return std::nullopt;
  }
  return real;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

std::string describe_sources(const VarSpec& spec) {
  std::vector<std::string> parts;
  for (const VarSource source : spec.sources) {
    switch (source) {
      case VarSource::cli: parts.push_back("cli (--var " + spec.name + "=...)"); break;
      case VarSource::web: parts.push_back("web (the request's vars)"); break;
      case VarSource::env: parts.push_back("env (" + spec.env_name() + ")"); break;
      case VarSource::parent: parts.push_back("parent (the parent run's '" + spec.name + "')"); break;
    }
  }
  return parts.empty() ? std::string("no source: it can never be set") : join(parts);
}

std::string describe_origin(VarSource origin, const VarSpec& spec) {
  if (origin == VarSource::env) return "env " + spec.env_name();
  return std::string(to_string(origin));
}

}  // namespace

std::string_view to_string(VarType type) {
  switch (type) {
    case VarType::string: return "string";
    case VarType::number: return "number";
    case VarType::boolean: return "boolean";
    case VarType::enumeration: return "enum";
  }
  return "string";
}

std::optional<VarType> parse_var_type(std::string_view text) {
  if (text == "string") return VarType::string;
  if (text == "number") return VarType::number;
  if (text == "boolean") return VarType::boolean;
  if (text == "enum") return VarType::enumeration;
  return std::nullopt;
}

std::string_view to_string(VarSource source) {
  switch (source) {
    case VarSource::cli: return "cli";
    case VarSource::web: return "web";
    case VarSource::env: return "env";
    case VarSource::parent: return "parent";
  }
  return "cli";
}

std::optional<VarSource> parse_var_source(std::string_view text) {
  if (text == "cli") return VarSource::cli;
  if (text == "web") return VarSource::web;
  if (text == "env") return VarSource::env;
  if (text == "parent") return VarSource::parent;
  return std::nullopt;
}

const std::vector<VarSource>& all_var_sources() {
  static const std::vector<VarSource> sources{VarSource::cli, VarSource::web, VarSource::env,
                                              VarSource::parent};
  return sources;
}

const std::vector<VarSource>& default_var_sources() {
  static const std::vector<VarSource> sources{VarSource::cli, VarSource::web};
  return sources;
}

bool VarSpec::allows(VarSource source) const {
  return std::find(sources.begin(), sources.end(), source) != sources.end();
}

std::string VarSpec::env_name() const { return env.empty() ? default_env_name(name) : env; }

std::string default_env_name(std::string_view var_name) {
  std::string out = "AGENTRY_VAR_";
  for (const char c : var_name) {
    out += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  }
  return out;
}

bool is_valid_var_name(std::string_view name) {
  if (name.empty()) return false;
  const auto start = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (!start(name.front())) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) { return start(c) || (c >= '0' && c <= '9'); });
}

namespace {

/// coerce_var_value; with `quote_value` false an error describes the value by its kind
/// only ("not the value it has"), for values that may be secrets.
core::Result<boost::json::value> coerce(const VarSpec& spec, const boost::json::value& value, bool text_input,
                                        bool quote_value) {
  const auto shown = [&](const boost::json::value& v) {
    return quote_value ? agentry::definitions::shown(v) : std::string("the value it has");
  };
  switch (spec.type) {
    case VarType::string:
      if (value.is_string()) return value;
      return bad_value("must be a string, not " + std::string(json_kind(value)));
    case VarType::number:
      if (value.is_number()) return value;
      if (value.is_string() && text_input) {
        if (auto number = parse_number(value.get_string())) return *number;
        return bad_value("must be a number, not " + shown(value));
      }
      return bad_value("must be a number, not " + shown(value));
    case VarType::boolean:
      if (value.is_bool()) return value;
      if (value.is_string()) {
        const std::string_view text = value.get_string();
        if (text == "true" || text == "1") return boost::json::value(true);
        if (text == "false" || text == "0") return boost::json::value(false);
      }
      return bad_value("must be true or false (or \"true\", \"false\", \"1\", \"0\"), not " +
                       shown(value));
    case VarType::enumeration:
      if (value.is_string()) {
        const std::string_view text = value.get_string();
        if (std::find(spec.values.begin(), spec.values.end(), text) != spec.values.end()) return value;
      }
      return bad_value("must be one of " + join(spec.values) + ", not " + shown(value));
  }
  return bad_value("has an unknown type");
}

}  // namespace

core::Result<boost::json::value> coerce_var_value(const VarSpec& spec, const boost::json::value& value,
                                                  bool text_input) {
  return coerce(spec, value, text_input, true);
}

core::Result<ResolvedVars> resolve_var_values(const std::vector<VarSpec>& specs,
                                              const boost::json::object& given, VarSource source,
                                              const EnvLookup& env,
                                              const boost::json::object* parent_vars) {
  std::vector<Problem> problems;
  auto problem = [&](const std::string& name, std::string message) {
    problems.push_back(Problem{"", "vars." + name, std::move(message)});
  };
  const EnvLookup lookup = env_or_process(env);

  std::vector<std::string> known;
  for (const auto& spec : specs) known.push_back(spec.name);
  for (const auto& [key, value] : given) {
    const std::string_view name = key;
    const auto spec = std::find_if(specs.begin(), specs.end(),
                                   [&](const VarSpec& s) { return s.name == name; });
    if (spec == specs.end()) {
      problem(std::string(key), "unknown var '" + std::string(key) + "'" +
                       (known.empty() ? "; this assignment declares no vars"
                                      : "; declared vars: " + join(known)));
    } else if (!spec->allows(source) && !value.is_null()) {
      problem(std::string(key), "var '" + std::string(key) + "' cannot be set from " +
                       std::string(to_string(source)) + "; it may come from " +
                       describe_sources(*spec));
    }
  }

  ResolvedVars resolved;
  for (const auto& spec : specs) {
    std::optional<boost::json::value> value;
    std::optional<VarSource> origin;
    // The spec's sources in its order; the first that has a value gives it.
    for (const VarSource candidate : spec.sources) {
      if (candidate == VarSource::cli || candidate == VarSource::web) {
        const auto* given_value = candidate == source ? given.if_contains(spec.name) : nullptr;
        if (given_value != nullptr && !given_value->is_null()) value = *given_value;
      } else if (candidate == VarSource::env) {
        // An empty variable counts as unset: `FOO= agentry ...` should not fail a number var.
        if (auto text = lookup(spec.env_name()); text && !text->empty()) value = boost::json::value(*text);
      } else if (parent_vars != nullptr) {
        if (const auto* inherited = parent_vars->if_contains(spec.name);
            inherited != nullptr && !inherited->is_null()) {
          value = *inherited;
        }
      }
      if (value) {
        origin = candidate;
        break;
      }
    }
    const bool from_default = !value && spec.default_value;
    if (from_default) value = *spec.default_value;
    if (!value) {
      if (spec.required && !spec.required_at_prepare) {
        problem(spec.name, "missing required var '" + spec.name + "'; set it from " +
                               describe_sources(spec));
      }
      resolved.values[spec.name] = nullptr;
      continue;
    }
    const bool text_input = from_default || origin == VarSource::cli || origin == VarSource::env;
    // Say what an env value (or a parent's, which may have come from its env) should be,
    // never what it is.
    const bool may_be_secret = origin == VarSource::env || origin == VarSource::parent;
    auto coerced = coerce(spec, *value, text_input, !may_be_secret);
    if (!coerced) {
      problem(spec.name, "var '" + spec.name + "' from " +
                             (from_default ? std::string("its default") : describe_origin(*origin, spec)) +
                             " " + coerced.error().message);
      continue;
    }
    resolved.values[spec.name] = std::move(coerced).value();
    if (origin) resolved.origins[spec.name] = *origin;
  }

  if (!problems.empty()) {
    core::Error error = validation_error(problems);
    if (problems.size() > 1) {
      std::string message;
      for (const auto& p : problems) message += (message.empty() ? "" : "; ") + p.message;
      error.message = message;
    }
    return core::fail(std::move(error));
  }
  return resolved;
}

core::Result<void> check_prepare_required_vars(const std::vector<VarSpec>& specs,
                                               const boost::json::object& values) {
  for (const auto& spec : specs) {
    if (!spec.required || !spec.required_at_prepare) continue;
    const auto* value = values.if_contains(spec.name);
    if (value != nullptr && !value->is_null()) continue;
    return core::fail(core::ErrorCode::validation,
                      "missing required var '" + spec.name +
                          "' (requiredAt: prepare): no prepare hook set it, and the request did not give it",
                      {{"field", "vars." + spec.name}, {"requiredAt", "prepare"}});
  }
  return core::ok();
}

core::Result<boost::json::object> resolve_vars(const std::vector<VarSpec>& specs,
                                               const boost::json::object& given,
                                               VarSource source, const EnvLookup& env,
                                               const boost::json::object* parent_vars) {
  auto resolved = resolve_var_values(specs, given, source, env, parent_vars);
  if (!resolved) return resolved.failure();
  return std::move(resolved->values);
}

}  // namespace agentry::definitions

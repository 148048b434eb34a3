#include "definitions/trigger.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>

namespace agentry::definitions {
namespace json = boost::json;

namespace {

/// The payload field `pointer` names, or nullptr when it is absent (a malformed pointer
/// is refused when the trigger is loaded).
const json::value* at_pointer(const json::value& payload, std::string_view pointer) {
  boost::system::error_code ec;
  return payload.find_pointer(pointer, ec);
}

/// A placeholder's parts: a header name, or a JSON Pointer.
struct KeyPlaceholder {
  bool header = false;
  std::string what;
};

std::optional<KeyPlaceholder> parse_placeholder(std::string_view inside) {
  while (!inside.empty() && inside.front() == ' ') inside.remove_prefix(1);
  while (!inside.empty() && inside.back() == ' ') inside.remove_suffix(1);
  constexpr std::string_view header_prefix = "header:";
  if (inside.substr(0, header_prefix.size()) == header_prefix) {
    std::string name(inside.substr(header_prefix.size()));
    const bool token = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    });
    if (!token) return std::nullopt;
    return KeyPlaceholder{true, std::move(name)};
  }
  if (inside.empty() || inside.front() != '/') return std::nullopt;
  return KeyPlaceholder{false, std::string(inside)};
}

/// Walks `key_template`, calling `literal(text)` and `placeholder(p)` in order; an error
/// message for a malformed template.
template <class Literal, class Hole>
std::optional<std::string> walk(std::string_view key_template, Literal literal, Hole hole) {
  std::size_t at = 0;
  while (at < key_template.size()) {
    const auto open = key_template.find("{{", at);
    if (open == std::string_view::npos) {
      literal(key_template.substr(at));
      break;
    }
    literal(key_template.substr(at, open - at));
    const auto close = key_template.find("}}", open + 2);
    if (close == std::string_view::npos) return "'{{' at offset " + std::to_string(open) + " has no closing '}}'";
    const auto inside = key_template.substr(open + 2, close - open - 2);
    auto placeholder = parse_placeholder(inside);
    if (!placeholder)
      return "'{{" + std::string(inside) +
             "}}' is neither a JSON Pointer into the payload ({{/issue/id}}) nor a header ({{header:X-Request-Id}})";
    if (auto problem = hole(*placeholder)) return problem;
    at = close + 2;
  }
  return std::nullopt;
}

std::string text_of(const json::value& value) {
  if (value.is_string()) return std::string(value.get_string());
  return json::serialize(value);
}

bool same_value(const json::value& a, const json::value& b) {
  if (a.is_number() && b.is_number()) return a.to_number<double>() == b.to_number<double>();
  return a == b;
}

}  // namespace

std::string_view to_string(TriggerScheme scheme) { return scheme == TriggerScheme::github ? "github" : "agentry"; }

std::string effective_dedup_key(const TriggerDefinition& trigger) {
  if (!trigger.dedup_key.empty()) return trigger.dedup_key;
  return trigger.scheme == TriggerScheme::github ? "{{header:X-GitHub-Delivery}}" : "{{header:X-Agentry-Signature}}";
}

std::optional<std::string> filter_mismatch(const TriggerDefinition& trigger, const json::value& payload) {
  for (const auto& condition : trigger.filter) {
    const json::value* field = at_pointer(payload, condition.pointer);
    const bool passes = field != nullptr && std::any_of(condition.allowed.begin(), condition.allowed.end(),
                                                        [&](const json::value& v) { return same_value(*field, v); });
    if (passes) continue;
    json::array allowed(condition.allowed.begin(), condition.allowed.end());
    return condition.pointer + " is " + (field ? json::serialize(*field) : std::string("absent")) + ", not one of " +
           json::serialize(allowed);
  }
  return std::nullopt;
}

core::Result<json::object> map_trigger_vars(const TriggerDefinition& trigger, const json::value& payload) {
  json::object out;
  std::vector<Problem> missing;
  for (const auto& var : trigger.vars) {
    const json::value* field = at_pointer(payload, var.pointer);
    if (field == nullptr || field->is_null()) {
      if (var.default_value) {
        out[var.name] = *var.default_value;
      } else if (var.required) {
        missing.push_back(Problem{"", "vars." + var.name,
                                  "the payload has no value at " + var.pointer + " for var '" + var.name + "'"});
      }
      continue;
    }
    out[var.name] = field->is_object() || field->is_array() ? json::value(json::serialize(*field)) : *field;
  }
  if (!missing.empty()) {
    auto error = validation_error(missing);
    return core::fail(std::move(error));
  }
  return out;
}

core::Result<std::string> render_dedup_key(std::string_view key_template, const json::value& payload,
                                           const HeaderLookup& header) {
  std::string key;
  auto problem = walk(
      key_template, [&](std::string_view text) { key += text; },
      [&](const KeyPlaceholder& p) -> std::optional<std::string> {
        if (p.header) {
          auto value = header(p.what);
          if (!value || value->empty()) return "the request has no " + p.what + " header";
          key += *value;
          return std::nullopt;
        }
        const json::value* field = at_pointer(payload, p.what);
        if (field == nullptr || field->is_null()) return "the payload has no value at " + p.what;
        key += text_of(*field);
        return std::nullopt;
      });
  auto refuse = [&](std::string message) {
    return core::fail(core::ErrorCode::validation, "dedup key '" + std::string(key_template) + "': " + message,
                      {{"field", "dedupKey"}, {"dedupKey", key_template}});
  };
  if (problem) return refuse(*problem);
  if (key.empty()) return refuse("renders empty");
  if (key.size() > max_dedup_key_bytes)
    return refuse("is longer than " + std::to_string(max_dedup_key_bytes) + " bytes");
  return key;
}

std::optional<std::string> dedup_key_problem(std::string_view key_template) {
  return walk(
      key_template, [](std::string_view) {}, [](const KeyPlaceholder&) -> std::optional<std::string> { return std::nullopt; });
}

}  // namespace agentry::definitions

// triggers/<name>.yaml: see definitions/trigger.hpp for the meaning of each field and
// docs/definitions.md for the format. Unknown keys are errors, as for environments: a
// misspelt `filter` or `secretEnv` must never leave a door open wider than its author meant.

#include "definitions/document.hpp"
#include "definitions/env.hpp"
#include "definitions/field_reader.hpp"
#include "definitions/locator.hpp"
#include "definitions/parsers.hpp"
#include "definitions/trigger.hpp"
#include "definitions/vars.hpp"

#include <algorithm>

namespace agentry::definitions {
namespace {

/// RFC 6901: "" or '/'-separated tokens where '~' is only "~0" or "~1". We require the
/// leading '/': the whole payload is never one var.
std::optional<std::string> pointer_problem(std::string_view pointer) {
  if (pointer.empty() || pointer.front() != '/')
    return "'" + std::string(pointer) + "' is not a JSON Pointer: write it from the payload's root, e.g. /issue/number";
  for (std::size_t i = 0; i < pointer.size(); ++i)
    if (pointer[i] == '~' && (i + 1 == pointer.size() || (pointer[i + 1] != '0' && pointer[i + 1] != '1')))
      return "'" + std::string(pointer) + "' has a '~' that is not ~0 (for '~') or ~1 (for '/')";
  return std::nullopt;
}

std::optional<std::string> read_pointer(const YamlNode& node, const std::string& field, Diagnostics& diag) {
  auto text = read_string(node, field, diag);
  if (!text) return std::nullopt;
  if (auto problem = pointer_problem(*text)) {
    diag.error(field, *problem);
    return std::nullopt;
  }
  return text;
}

/// `vars: {name: /pointer}` or `{name: {from: /pointer, required: false, default: x}}`.
std::vector<TriggerVar> read_trigger_vars(FieldReader& reader) {
  std::vector<TriggerVar> out;
  const YamlNode* node = reader.take("vars");
  if (node == nullptr) return out;
  Diagnostics& diag = reader.diag();
  const std::string field = reader.field("vars");
  if (!node->is_map()) {
    diag.error(field, "must map var names to JSON Pointers into the payload (title: /issue/title), not " +
                          std::string(describe_kind(*node)));
    return out;
  }
  for (const auto& [name, value] : node->entries) {
    const std::string at = join_field(field, name);
    if (!is_valid_var_name(name)) {
      diag.error(at, "'" + name + "' is not a valid var name (letters, digits and '_', not starting with a digit)");
      continue;
    }
    TriggerVar var;
    var.name = name;
    if (value.is_map()) {
      FieldReader entry(value, at, diag);
      const YamlNode* from = entry.take("from");
      if (from == nullptr) {
        diag.error(join_field(at, "from"), "is required: the JSON Pointer of the payload field, e.g. /issue/title");
      } else if (auto pointer = read_pointer(*from, join_field(at, "from"), diag)) {
        var.pointer = *pointer;
      }
      var.required = entry.boolean("required").value_or(true);
      if (const YamlNode* fallback = entry.take("default")) {
        var.default_value = to_json(*fallback);
        var.required = false;
      }
      entry.refuse_unknown_keys();
    } else if (auto pointer = read_pointer(value, at, diag)) {
      var.pointer = *pointer;
    }
    if (!var.pointer.empty()) out.push_back(std::move(var));
  }
  return out;
}

/// `filter: {/action: opened, /issue/state: [open, reopened]}`.
std::vector<TriggerCondition> read_filter(FieldReader& reader) {
  std::vector<TriggerCondition> out;
  const YamlNode* node = reader.take("filter");
  if (node == nullptr) return out;
  Diagnostics& diag = reader.diag();
  const std::string field = reader.field("filter");
  if (!node->is_map()) {
    diag.error(field, "must map JSON Pointers to the value (or list of values) they must have, e.g. "
                      "{/action: opened}, not " + std::string(describe_kind(*node)));
    return out;
  }
  for (const auto& [pointer, value] : node->entries) {
    const std::string at = join_field(field, pointer);
    if (auto problem = pointer_problem(pointer)) {
      diag.error(at, *problem);
      continue;
    }
    TriggerCondition condition{pointer, {}};
    if (value.is_sequence()) {
      for (const auto& item : value.items) condition.allowed.push_back(to_json(item));
    } else if (value.is_scalar()) {
      condition.allowed.push_back(to_json(value));
    }
    if (condition.allowed.empty() ||
        std::any_of(condition.allowed.begin(), condition.allowed.end(),
                    [](const boost::json::value& v) { return v.is_object() || v.is_array(); })) {
      diag.error(at, "must be a value or a list of values (strings, numbers, booleans)");
      continue;
    }
    out.push_back(std::move(condition));
  }
  return out;
}

}  // namespace

std::optional<TriggerDefinition> parse_trigger(const Location& location, const Roots& roots, Diagnostics& diag) {
  auto document = read_document(location.file, DocumentFormat::yaml, roots.getenv, diag);
  if (!document) return std::nullopt;
  FieldReader reader(document->fields, "", diag);
  check_schema_version(reader);
  const auto name = definition_name(reader, location);

  TriggerDefinition trigger;
  trigger.source_path = location.file;
  trigger.description = reader.string("description").value_or("");
  trigger.assignment = reader.required_string("assignment");
  if (!trigger.assignment.empty() && !is_valid_name(Kind::assignment, trigger.assignment))
    diag.error("assignment", "'" + trigger.assignment + "' is not an assignment name");
  trigger.agent = reader.required_string("agent");
  if (!trigger.agent.empty() && !is_valid_name(Kind::agent, trigger.agent))
    diag.error("agent", "'" + trigger.agent + "' is not an agent name");
  trigger.cwd = reader.string("cwd");
  if (trigger.cwd && !std::filesystem::path(*trigger.cwd).is_absolute())
    diag.error("cwd", "'" + *trigger.cwd + "' must be an absolute path (use ${HOME}/... for one in your home)");

  trigger.secret_env = reader.required_string("secretEnv");
  if (!trigger.secret_env.empty()) {
    if (!is_env_name(trigger.secret_env)) {
      diag.error("secretEnv", "'" + trigger.secret_env +
                                  "' is not an environment variable name: name the variable that holds the secret, "
                                  "not the secret itself");
    } else {
      const auto secret = env_or_process(roots.getenv)(trigger.secret_env);
      if (!secret || secret->empty())
        diag.warn("secretEnv", trigger.secret_env +
                                   " is not set in the daemon's environment: deliveries are refused (503) until it is");
    }
  }

  if (auto scheme = reader.string("scheme")) {
    if (*scheme == "github") trigger.scheme = TriggerScheme::github;
    else if (*scheme != "agentry") diag.error("scheme", "'" + *scheme + "' is not a scheme: use agentry or github");
  }
  if (auto window = reader.integer("replayWindowSeconds", 1, 24 * 3600)) {
    trigger.replay_window_seconds = static_cast<int>(*window);
    if (trigger.scheme == TriggerScheme::github)
      diag.warn("replayWindowSeconds", "is not used by the github scheme, whose requests carry no timestamp");
  }
  trigger.vars = read_trigger_vars(reader);
  trigger.filter = read_filter(reader);
  trigger.dedup_key = reader.string("dedupKey").value_or("");
  if (!trigger.dedup_key.empty())
    if (auto problem = dedup_key_problem(trigger.dedup_key)) diag.error("dedupKey", *problem);
  reader.refuse_unknown_keys();

  if (!name || diag.has_errors()) return std::nullopt;
  trigger.name = *name;
  return trigger;
}

}  // namespace agentry::definitions

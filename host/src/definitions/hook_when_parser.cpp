// A hook's `when:` map. agentry's own filters (`attempt`, `task`, `to`, ...) take any
// scalar or list of scalars; agent-runner's (`sessionIndex`, `taskIds`, `source`, ...)
// are checked as strictly as there, and refused where agentry's engine could never
// match them. See docs/definitions.md "Phases".

#include "definitions/field_reader.hpp"
#include "definitions/parsers.hpp"

#include <algorithm>
#include <array>
#include <set>

namespace agentry::definitions {
namespace {

constexpr std::array<std::string_view, 4> task_statuses{"pending", "in_progress", "completed", "blocked"};
constexpr std::array<std::string_view, 4> transition_sources{"run-loop", "task-set", "task-append-notes", "task-add"};

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

/// The node's scalars: one scalar, or a non-empty list of them.
std::optional<std::vector<const YamlNode*>> scalars_of(const YamlNode& node, const std::string& field,
                                                       Diagnostics& diag) {
  std::vector<const YamlNode*> out;
  if (node.is_scalar()) {
    out.push_back(&node);
    return out;
  }
  if (!node.is_sequence() || node.items.empty()) {
    diag.error(field, "must be a value or a non-empty list of values, not " + std::string(describe_kind(node)));
    return std::nullopt;
  }
  for (std::size_t i = 0; i < node.items.size(); ++i) {
    if (!node.items[i].is_scalar()) {
      diag.error(index_field(field, i), "must be a value, not " + std::string(describe_kind(node.items[i])));
      return std::nullopt;
    }
    out.push_back(&node.items[i]);
  }
  return out;
}

/// `sessionIndex`, `attemptIndexInSession`: an integer >= 0 or a non-empty list of them,
/// kept as their decimal text (the facts hooks are matched against are text).
std::optional<std::vector<std::string>> read_indexes(const YamlNode& node, const std::string& field, Diagnostics& diag) {
  auto items = scalars_of(node, field, diag);
  if (!items) return std::nullopt;
  std::vector<std::string> out;
  for (const YamlNode* item : *items) {
    auto number = yaml_int(item->text);
    if (!number || *number < 0) {
      diag.error(field, "must be an integer of 0 or more (0 is the first), or a list of them; got '" + item->text + "'");
      return std::nullopt;
    }
    out.push_back(std::to_string(*number));
  }
  return out;
}

/// A value (or list) each of which must be one of `allowed`.
template <std::size_t N>
std::optional<std::vector<std::string>> read_enum(const YamlNode& node, const std::string& field,
                                                  const std::array<std::string_view, N>& allowed, Diagnostics& diag) {
  auto items = scalars_of(node, field, diag);
  if (!items) return std::nullopt;
  std::vector<std::string> out;
  for (const YamlNode* item : *items) {
    if (std::find(allowed.begin(), allowed.end(), item->text) == allowed.end()) {
      std::string list;
      for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      diag.error(field, "'" + item->text + "' is not one of " + list);
      return std::nullopt;
    }
    out.push_back(item->text);
  }
  return out;
}

/// `taskIds`: a non-empty list of task ids without duplicates (one id is also taken).
std::optional<std::vector<std::string>> read_task_ids(const YamlNode& node, const std::string& field,
                                                      Diagnostics& diag) {
  auto items = scalars_of(node, field, diag);
  if (!items) return std::nullopt;
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const YamlNode* item : *items) {
    std::string id = trimmed(item->text);
    if (id.empty()) {
      diag.error(field, "must not contain an empty task id");
      return std::nullopt;
    }
    if (!seen.insert(id).second) {
      diag.error(field, "names task '" + id + "' twice");
      return std::nullopt;
    }
    out.push_back(std::move(id));
  }
  return out;
}

/// agent-runner's `source`, limited to what agentry's engine runs the hook on
/// (core::judges_task_source): a value that can never match is refused, not ignored.
std::optional<std::vector<std::string>> read_sources(const YamlNode& node, const std::string& field,
                                                     const core::HookSpec& hook, Diagnostics& diag) {
  auto values = read_enum(node, field, transition_sources, diag);
  if (!values) return std::nullopt;
  for (const auto& value : *values) {
    if (value == "run-loop") {
      diag.error(field, "'run-loop' can never match: agentry's engine never changes a task's status itself");
      return std::nullopt;
    }
    if (!core::judges_task_source(hook, value)) {
      diag.error(field, "'" + value + "' can never match this hook: appended notes and added tasks are judged by "
                        "module hooks and the command built-in's {mode, command} form only; executable hooks "
                        "and require-children-success judge status changes (task-set)");
      return std::nullopt;
    }
  }
  return values;
}

}  // namespace

bool read_hook_when(const YamlNode& when, const std::string& when_field, core::HookSpec& hook, Diagnostics& diag) {
  if (!when.is_map()) {
    diag.error(when_field, "must be a map of filters, not " + std::string(describe_kind(when)));
    return false;
  }
  bool ok = true;
  const auto keys = core::hook_when_keys(hook.phase);
  if (when.find("taskId") && when.find("taskIds")) {
    diag.error(when_field, "has both 'taskId' and 'taskIds'; use one");
    ok = false;
  }
  for (const auto& [key, value] : when.entries) {
    const std::string key_field = join_field(when_field, key);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      std::string allowed;
      for (auto k : keys) allowed += (allowed.empty() ? "" : ", ") + std::string(k);
      diag.error(key_field, "is not a filter of " + std::string(core::to_string(hook.phase)) + " hooks" +
                                (allowed.empty() ? " (they take none)" : " (use " + allowed + ")"));
      ok = false;
      continue;
    }
    std::optional<std::vector<std::string>> values;
    std::string stored_as = key;
    if (key == "sessionIndex" || key == "attemptIndexInSession") {
      values = read_indexes(value, key_field, diag);
    } else if (key == "taskId" || key == "taskIds") {
      values = read_task_ids(value, key_field, diag);
      stored_as = "taskId";  // one filter, two spellings
    } else if (key == "fromStatus" || key == "toStatus") {
      values = read_enum(value, key_field, task_statuses, diag);
    } else if (key == "source") {
      values = read_sources(value, key_field, hook, diag);
    } else if (value.is_scalar()) {
      values = std::vector<std::string>{value.text};
    } else {
      values = read_string_list(value, key_field, diag);
    }
    if (!values) {
      ok = false;
      continue;
    }
    hook.when[stored_as] = std::move(*values);
  }
  return ok;
}

}  // namespace agentry::definitions

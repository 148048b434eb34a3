#include "store_import/agent_runner/hook_mapping.hpp"

#include "core/clock.hpp"

#include <boost/json.hpp>

#include <filesystem>
#include <map>

namespace agentry::store_import::agent_runner {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

std::string text_at(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

/// One `when` value as agentry's filter values: a scalar or a list of them, as text.
std::optional<std::vector<std::string>> when_values(const json::value& v) {
  std::vector<std::string> out;
  auto add = [&](const json::value& item) {
    if (item.is_string()) out.emplace_back(item.as_string());
    else if (item.is_int64()) out.push_back(std::to_string(item.as_int64()));
    else if (item.is_uint64()) out.push_back(std::to_string(item.as_uint64()));
    else return false;
    return true;
  };
  if (v.is_array()) {
    for (const auto& item : v.as_array())
      if (!add(item)) return std::nullopt;
  } else if (!add(v)) {
    return std::nullopt;
  }
  if (out.empty()) return std::nullopt;
  return out;
}

/// Their `when` (already checked by agent-runner when it froze the hook) as agentry's:
/// the keys agentry's engine matches under the same names; `taskIds` is `taskId`.
/// nullopt (with the reason) for a key agentry's engine cannot match at that phase.
std::optional<std::map<std::string, std::vector<std::string>>> when_of(const json::value& when, core::HookPhase phase,
                                                                      std::string& why) {
  std::map<std::string, std::vector<std::string>> out;
  if (when.is_null()) return out;
  if (!when.is_object()) {
    why = "its `when` is not an object";
    return std::nullopt;
  }
  const auto keys = core::hook_when_keys(phase);
  for (const auto& [key, value] : when.as_object()) {
    if (std::find(keys.begin(), keys.end(), std::string_view(key)) == keys.end()) {
      why = "its `when` filter '" + std::string(key) + "' is not one agentry matches at " +
            std::string(core::to_string(phase));
      return std::nullopt;
    }
    auto values = when_values(value);
    if (!values) {
      why = "its `when` filter '" + std::string(key) + "' is not a value or a list of values";
      return std::nullopt;
    }
    out[key == "taskIds" ? "taskId" : std::string(key)] = std::move(*values);
  }
  return out;
}

/// The descriptor as an agentry hook, or the reason it cannot be one here.
std::optional<core::HookSpec> hook_of(const json::object& d, const Manifest& m, std::string& why) {
  core::HookSpec hook;
  hook.id = text_at(d, "hookId");
  auto phase = core::parse_hook_phase(text_at(d, "phase"));
  if (!phase) {
    why = "its phase '" + text_at(d, "phase") + "' is not one of agentry's";
    return std::nullopt;
  }
  hook.phase = *phase;
  const auto* source = d.if_contains("source");
  const json::object empty;
  const auto& src = source && source->is_object() ? source->as_object() : empty;
  if (auto builtin = text_at(src, "builtin"); !builtin.empty()) {
    if (builtin != core::builtin_command && builtin != core::builtin_git_worktree &&
        builtin != core::builtin_require_children_success) {
      why = "its built-in '" + builtin + "' does not exist in agentry";
      return std::nullopt;
    }
    hook.builtin = builtin;
  } else {
    const auto resolved = text_at(d, "resolvedPath");
    std::error_code ec;
    if (resolved.empty() || !fs::is_regular_file(resolved, ec)) {
      why = "its module " + (resolved.empty() ? std::string("has no resolved path") : resolved + " does not exist here");
      return std::nullopt;
    }
    hook.module_path = resolved;
    hook.module_source = !text_at(src, "name").empty() ? "name:" + text_at(src, "name") : "path:" + text_at(src, "path");
    hook.timeout_sec = 0;  // the daemon's module hook timeout, as for loaded definitions
  }
  if (const auto* config = d.if_contains("config"); config && config->is_object()) hook.options = config->as_object();
  // agentry's own forms of these built-ins mean something else: only theirs carry over.
  if ((hook.builtin == core::builtin_command && !core::is_command_status_or_json_form(hook)) ||
      (hook.builtin == core::builtin_git_worktree && !core::is_git_worktree_repo_form(hook))) {
    why = "its " + hook.builtin + " options are not agent-runner's form";
    return std::nullopt;
  }
  auto when = when_of(d.contains("when") ? d.at("when") : json::value(), hook.phase, why);
  if (!when) return std::nullopt;
  hook.when = std::move(*when);
  const auto task_scope = text_at(d, "taskScopeId");
  hook.origin = task_scope.empty() ? "assignment" : "task:" + task_scope;
  hook.source_path = hook.is_module() ? hook.module_path : m.assignment_source_path.value_or("");
  return hook;
}

/// Their audit outcome in agentry's words: a hook that returned nothing ("skipped"),
/// continued or asked for another prompt ran fine; the reason of a block or a rejection
/// is their summary.
std::string outcome_of(const std::string& theirs) {
  static const std::map<std::string, std::string> outcomes = {
      {"continue", "ok"},      {"reinvoke", "ok"},     {"skipped", "ok"},   {"accepted", "ok"},
      {"block", "blocked"},    {"rejected", "refused"}, {"error", "failed"}};
  auto it = outcomes.find(theirs);
  return it == outcomes.end() ? "failed" : it->second;
}

std::int64_t millis_between(const std::string& start, const std::string& end) {
  auto a = core::parse_iso8601(start);
  auto b = core::parse_iso8601(end);
  return a && b && *b > *a ? *b - *a : 0;
}

core::HookAudit audit_of(const json::object& r) {
  core::HookAudit a;
  a.hook_id = text_at(r, "hookId");
  a.phase = core::parse_hook_phase(text_at(r, "phase")).value_or(core::HookPhase::prepare);
  const auto theirs = text_at(r, "outcome");
  a.outcome = outcome_of(theirs);
  a.message = text_at(r, "summary");
  if (a.message.empty() && (theirs == "skipped" || theirs == "reinvoke")) a.message = theirs;
  a.created_at = text_at(r, "startedAt");
  a.duration_ms = millis_between(a.created_at, text_at(r, "endedAt"));
  return a;
}

}  // namespace

void map_hooks(const Manifest& m, ImportedRun& out) {
  for (const auto& descriptor : m.resolved_hooks) {
    std::string why = "it is not an object";
    std::optional<core::HookSpec> hook;
    if (descriptor.is_object()) hook = hook_of(descriptor.as_object(), m, why);
    if (hook) {
      out.run.frozen.hooks.push_back(std::move(*hook));
      continue;
    }
    std::string label;
    if (descriptor.is_object()) {
      const auto& d = descriptor.as_object();
      label = text_at(d, "phase") + ":" + text_at(d, "hookId");
    }
    out.hooks_left_out.push_back((label.empty() ? json::serialize(descriptor) : label) + " (" + why + ")");
  }
  out.run.frozen.hooks_not_imported = out.hooks_left_out;
  out.hook_data = m.hook_state;
  for (const auto& record : m.hook_audits)
    if (record.is_object()) out.hook_audits.push_back(audit_of(record.as_object()));
}

}  // namespace agentry::store_import::agent_runner

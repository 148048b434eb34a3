#include "core/hook.hpp"

#include "core/json_strings.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace agentry::core {
namespace json = boost::json;
namespace {

constexpr std::array<std::pair<HookPhase, std::string_view>, 5> phase_names{{
    {HookPhase::prepare, "prepare"},
    {HookPhase::before_attempt, "beforeAttempt"},
    {HookPhase::after_attempt, "afterAttempt"},
    {HookPhase::after_exit, "afterExit"},
    {HookPhase::task_transition, "taskTransition"},
}};

std::string string_of(const json::object& o, std::string_view key) {
  if (auto* v = o.if_contains(key); v && v->is_string()) return std::string(v->as_string());
  return {};
}

}  // namespace

std::string_view to_string(HookPhase phase) {
  for (auto& [p, name] : phase_names)
    if (p == phase) return name;
  return "prepare";
}

std::optional<HookPhase> parse_hook_phase(std::string_view text) {
  for (auto& [p, name] : phase_names)
    if (name == text) return p;
  return std::nullopt;
}

std::vector<std::string_view> hook_when_keys(HookPhase phase) {
  switch (phase) {
    // agentry's own filters, then agent-runner's (docs/definitions.md "Phases").
    case HookPhase::prepare: return {};
    case HookPhase::before_attempt: return {"attempt", "session", "sessionIndex", "attemptIndexInSession"};
    case HookPhase::after_attempt:
      return {"attempt", "session", "outcome", "sessionIndex", "attemptIndexInSession"};
    case HookPhase::after_exit: return {"status", "sessionIndex", "attemptIndexInSession"};
    case HookPhase::task_transition:
      return {"task", "from", "to", "taskId", "taskIds", "fromStatus", "toStatus", "source"};
  }
  return {};
}

bool hook_matches(const HookSpec& hook, const std::map<std::string, std::string>& facts) {
  for (const auto& [key, accepted] : hook.when) {
    auto fact = facts.find(key);
    if (fact == facts.end()) return false;
    if (std::find(accepted.begin(), accepted.end(), fact->second) == accepted.end()) return false;
  }
  return true;
}

json::object to_json(const HookSpec& hook) {
  json::object o;
  o["id"] = hook.id;
  o["phase"] = to_string(hook.phase);
  if (!hook.run.empty()) o["run"] = to_json_strings(hook.run);
  if (!hook.builtin.empty()) o["builtin"] = hook.builtin;
  if (hook.is_module()) {
    o["module"] = hook.module_path;
    o["moduleSource"] = hook.module_source;
  }
  if (!hook.options.empty()) o["with"] = hook.options;
  json::object when;
  for (const auto& [key, values] : hook.when) when[key] = to_json_strings(values);
  o["when"] = std::move(when);
  o["timeoutSec"] = hook.timeout_sec;
  o["origin"] = hook.origin;
  o["sourcePath"] = hook.source_path;
  return o;
}

HookSpec hook_spec_from_json(const json::value& value) {
  HookSpec hook;
  if (!value.is_object()) return hook;
  const auto& o = value.as_object();
  hook.id = string_of(o, "id");
  hook.phase = parse_hook_phase(string_of(o, "phase")).value_or(HookPhase::prepare);
  hook.run = strings_in(o.if_contains("run"));
  hook.builtin = string_of(o, "builtin");
  hook.module_path = string_of(o, "module");
  hook.module_source = string_of(o, "moduleSource");
  if (auto* v = o.if_contains("with"); v && v->is_object()) hook.options = v->as_object();
  if (auto* v = o.if_contains("when"); v && v->is_object())
    for (const auto& [key, values] : v->as_object()) hook.when[std::string(key)] = strings_in(&values);
  if (auto* v = o.if_contains("timeoutSec"); v && v->is_int64())
    hook.timeout_sec = static_cast<int>(v->as_int64());
  hook.origin = string_of(o, "origin");
  hook.source_path = string_of(o, "sourcePath");
  return hook;
}

json::object to_json(const HookAudit& audit) {
  json::object o{{"hookId", audit.hook_id},         {"phase", to_string(audit.phase)},
                 {"outcome", audit.outcome},        {"durationMs", audit.duration_ms},
                 {"createdAt", audit.created_at}};
  o["message"] = audit.message.empty() ? json::value(nullptr) : json::value(audit.message);
  o["exitCode"] = audit.exit_code ? json::value(*audit.exit_code) : json::value(nullptr);
  o["stderr"] = audit.stderr_excerpt.empty() ? json::value(nullptr) : json::value(audit.stderr_excerpt);
  o["outputTruncated"] = audit.output_truncated;
  return o;
}

json::array to_json(const std::vector<HookSpec>& hooks) {
  json::array out;
  for (const auto& h : hooks) out.emplace_back(to_json(h));
  return out;
}

std::vector<HookSpec> hook_specs_from_json(const json::value& value) {
  std::vector<HookSpec> out;
  if (!value.is_array()) return out;
  for (const auto& item : value.as_array()) out.push_back(hook_spec_from_json(item));
  return out;
}

bool is_command_status_or_json_form(const HookSpec& hook) {
  return hook.builtin == builtin_command && (hook.options.contains("mode") || hook.options.contains("command"));
}

bool judges_task_source(const HookSpec& hook, std::string_view source) {
  if (source == "task-set") return true;
  return hook.is_module() || !hook.module_source.empty() || is_command_status_or_json_form(hook);
}

bool is_git_worktree_repo_form(const HookSpec& hook) {
  if (hook.builtin != builtin_git_worktree) return false;
  for (const char* key : {"repo", "from", "branch", "path", "collision"})
    if (hook.options.contains(key)) return true;
  return false;
}

}  // namespace agentry::core

#include "core/run.hpp"

#include "core/frozen_inputs_json.hpp"
#include "core/json_strings.hpp"

#include <array>
#include <utility>

namespace agentry::core {
namespace json = boost::json;
namespace {

constexpr std::array<std::pair<RunStatus, std::string_view>, 8> run_status_names{{
    {RunStatus::initialized, "initialized"},
    {RunStatus::ready, "ready"},
    {RunStatus::running, "running"},
    {RunStatus::success, "success"},
    {RunStatus::blocked, "blocked"},
    {RunStatus::exhausted, "exhausted"},
    {RunStatus::aborted, "aborted"},
    {RunStatus::error, "error"},
}};

constexpr std::array<std::pair<TaskStatus, std::string_view>, 4> task_status_names{{
    {TaskStatus::pending, "pending"},
    {TaskStatus::in_progress, "in_progress"},
    {TaskStatus::completed, "completed"},
    {TaskStatus::blocked, "blocked"},
}};

std::string get_string(const json::object& o, std::string_view key) {
  if (auto* v = o.if_contains(key); v && v->is_string()) return std::string(v->as_string());
  return {};
}

json::object get_object(const json::object& o, std::string_view key) {
  if (auto* v = o.if_contains(key); v && v->is_object()) return v->as_object();
  return {};
}

}  // namespace

std::string_view to_string(RunStatus status) {
  for (auto& [s, name] : run_status_names)
    if (s == status) return name;
  return "error";
}

std::optional<RunStatus> parse_run_status(std::string_view text) {
  for (auto& [s, name] : run_status_names)
    if (name == text) return s;
  return std::nullopt;
}

bool is_terminal(RunStatus status) {
  switch (status) {
    case RunStatus::success:
    case RunStatus::blocked:
    case RunStatus::exhausted:
    case RunStatus::aborted:
    case RunStatus::error: return true;
    default: return false;
  }
}

std::string_view to_string(TaskStatus status) {
  for (auto& [s, name] : task_status_names)
    if (s == status) return name;
  return "pending";
}

std::optional<TaskStatus> parse_task_status(std::string_view text) {
  for (auto& [s, name] : task_status_names)
    if (name == text) return s;
  return std::nullopt;
}

json::value to_json(const FrozenInputs& in) { return to_json(in, {}); }

json::value to_json(const FrozenInputs& in, json::storage_ptr sp) {
  json::object o(std::move(sp));
  o["agentName"] = in.agent_name;
  o["agentSourcePath"] = in.agent_source_path;
  o["assignmentName"] = in.assignment_name;
  o["assignmentSourcePath"] = in.assignment_source_path;
  o["backend"] = in.backend;
  o["model"] = in.model;
  o["effort"] = in.effort;
  o["timeoutSec"] = in.timeout_sec;
  if (in.budget) o["budget"] = budget_json(*in.budget);
  o["unrestricted"] = in.unrestricted;
  o["backendConfig"] = in.backend_config;
  o["extraArgs"] = to_json_strings(in.extra_args);
  if (in.launcher) {
    json::object l;
    l["name"] = in.launcher->name;
    l["command"] = to_json_strings(in.launcher->command);
    l["env"] = in.launcher->env;
    o["launcher"] = std::move(l);
  } else {
    o["launcher"] = nullptr;
  }
  if (in.environment) {
    const auto& e = *in.environment;
    json::array mounts;
    for (const auto& m : e.mounts)
      mounts.push_back(json::object{{"source", m.source}, {"target", m.target}, {"readOnly", m.read_only}});
    o["environment"] = json::object{{"name", e.name},       {"sourcePath", e.source_path},
                                    {"kind", e.kind},       {"network", e.network},
                                    {"program", e.program}, {"mounts", std::move(mounts)},
                                    {"env", e.env},         {"extraArgs", to_json_strings(e.extra_args)}};
    if (e.container) o["environment"].as_object()["container"] = to_json(*e.container);
  }
  o["agentInstructions"] = in.agent_instructions;
  o["assignmentInstructions"] = in.assignment_instructions;
  o["agentInstructionsTemplate"] = in.agent_instructions_template;
  o["assignmentInstructionsTemplate"] = in.assignment_instructions_template;
  o["callerInstructions"] = in.caller_instructions;
  o["callerInstructionsTemplate"] = in.caller_instructions_template;
  o["message"] = in.message;
  o["messageTemplate"] = in.message_template;
  o["brief"] = in.brief;
  o["taskTemplates"] = in.task_templates;
  o["vars"] = in.vars;
  o["varSources"] = in.var_sources;
  o["varSpecs"] = in.var_specs;
  o["cliVars"] = in.cli_vars;
  o["lockedFields"] = to_json_strings(in.locked_fields);
  o["maxAttemptsPerSession"] = in.max_attempts_per_session;
  o["taskPrompt"] = in.task_prompt;
  o["notifyParentOnComplete"] = in.notify_parent_on_complete;
  if (!in.notify.empty()) o["notify"] = to_json(in.notify);
  if (!in.hooks.empty()) o["hooks"] = to_json(in.hooks);
  if (!in.hooks_not_imported.empty()) o["hooksNotImported"] = to_json_strings(in.hooks_not_imported);
  if (!in.placement_labels.empty()) o["placementLabels"] = to_json_strings(in.placement_labels);
  return o;
}

FrozenInputs frozen_inputs_from_json(const json::value& value) {
  FrozenInputs in;
  if (!value.is_object()) return in;
  const auto& o = value.as_object();
  in.agent_name = get_string(o, "agentName");
  in.agent_source_path = get_string(o, "agentSourcePath");
  in.assignment_name = get_string(o, "assignmentName");
  in.assignment_source_path = get_string(o, "assignmentSourcePath");
  in.backend = get_string(o, "backend");
  in.model = get_string(o, "model");
  in.effort = get_string(o, "effort");
  if (auto* v = o.if_contains("timeoutSec"); v && v->is_int64()) in.timeout_sec = static_cast<int>(v->as_int64());
  if (auto* v = o.if_contains("budget")) {
    std::string field, error;
    in.budget = parse_budget(*v, field, error);  // as written by budget_json: always readable
  }
  if (auto* v = o.if_contains("unrestricted"); v && v->is_bool()) in.unrestricted = v->as_bool();
  in.backend_config = get_object(o, "backendConfig");
  in.extra_args = strings_in(o.if_contains("extraArgs"));
  if (auto* v = o.if_contains("launcher"); v && v->is_object()) {
    const auto& l = v->as_object();
    in.launcher = FrozenLauncher{get_string(l, "name"), strings_in(l.if_contains("command")), get_object(l, "env")};
  }
  if (auto* v = o.if_contains("environment"); v && v->is_object()) {
    const auto& e = v->as_object();
    FrozenEnvironment env{get_string(e, "name"),    get_string(e, "sourcePath"), get_string(e, "kind"),
                          get_string(e, "network"), get_string(e, "program"),    {},
                          get_object(e, "env"),     strings_in(e.if_contains("extraArgs")), std::nullopt};
    if (auto* mounts = e.if_contains("mounts"); mounts && mounts->is_array())
      for (const auto& item : mounts->as_array()) {
        if (!item.is_object()) continue;
        const auto& m = item.as_object();
        const auto* ro = m.if_contains("readOnly");
        env.mounts.push_back({get_string(m, "source"), get_string(m, "target"), ro && ro->is_bool() && ro->as_bool()});
      }
    if (auto* c = e.if_contains("container"); c && c->is_object()) env.container = container_spec_from_json(c->as_object());
    in.environment = std::move(env);
  }
  in.agent_instructions = get_string(o, "agentInstructions");
  in.assignment_instructions = get_string(o, "assignmentInstructions");
  in.agent_instructions_template = get_string(o, "agentInstructionsTemplate");
  in.assignment_instructions_template = get_string(o, "assignmentInstructionsTemplate");
  in.caller_instructions = get_string(o, "callerInstructions");
  // Runs frozen before it was templated kept the text as written.
  in.caller_instructions_template = o.contains("callerInstructionsTemplate")
                                        ? get_string(o, "callerInstructionsTemplate")
                                        : in.caller_instructions;
  in.message = get_string(o, "message");
  in.message_template = get_string(o, "messageTemplate");
  in.brief = get_string(o, "brief");
  if (auto* v = o.if_contains("taskTemplates"); v && v->is_array()) in.task_templates = v->as_array();
  in.vars = get_object(o, "vars");
  in.var_sources = get_object(o, "varSources");
  in.var_specs = get_object(o, "varSpecs");
  in.cli_vars = get_object(o, "cliVars");
  in.locked_fields = strings_in(o.if_contains("lockedFields"));
  if (auto* v = o.if_contains("maxAttemptsPerSession"); v && v->is_int64())
    in.max_attempts_per_session = static_cast<int>(v->as_int64());
  if (auto* v = o.if_contains("taskPrompt"); v && v->is_bool()) in.task_prompt = v->as_bool();
  if (auto* v = o.if_contains("notifyParentOnComplete"); v && v->is_bool()) in.notify_parent_on_complete = v->as_bool();
  if (auto* v = o.if_contains("notify")) in.notify = notify_targets_from_json(*v);
  if (auto* v = o.if_contains("hooks")) in.hooks = hook_specs_from_json(*v);
  in.hooks_not_imported = strings_in(o.if_contains("hooksNotImported"));
  in.placement_labels = strings_in(o.if_contains("placementLabels"));
  return in;
}

}  // namespace agentry::core

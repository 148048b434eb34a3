#include "definitions/json.hpp"

#include <boost/json/array.hpp>

namespace agentry::definitions {
namespace {

boost::json::value optional_string(const std::optional<std::string>& value) {
  if (!value) return nullptr;
  return boost::json::value(*value);
}

boost::json::array strings(const std::vector<std::string>& items) {
  boost::json::array out;
  for (const auto& item : items) out.emplace_back(item);
  return out;
}

template <class T>
boost::json::object detail(std::string_view kind, std::string_view key, const T& definition) {
  boost::json::object out;
  out["kind"] = kind;
  out[key] = to_json(definition);
  out["sourcePath"] = definition.source_path.string();
  out["warnings"] = to_json(definition.warnings);
  return out;
}

template <class T>
boost::json::object list_json(std::string_view kind, const ListResult<T>& list) {
  boost::json::array entries;
  for (const auto& entry : list.entries) entries.emplace_back(to_summary_json(entry));
  boost::json::object out;
  out["kind"] = kind;
  out["entries"] = std::move(entries);
  out["warnings"] = to_json(list.warnings);
  return out;
}

}  // namespace

boost::json::object to_json(const AgentDefinition& agent) {
  boost::json::object backend_args;
  for (const auto& [backend, args] : agent.backend_args) {
    backend_args[backend] = boost::json::object{{"extraArgs", strings(args.extra_args)}};
  }
  boost::json::object out;
  out["name"] = agent.name;
  out["description"] = agent.description;
  out["backend"] = agent.backend;
  out["model"] = optional_string(agent.model);
  out["effort"] = optional_string(agent.effort);
  out["timeoutSec"] = agent.timeout_sec;
  out["unrestricted"] = agent.unrestricted;
  out["taskPrompt"] = agent.task_prompt;
  out["notify"] = core::to_json(agent.notify, /*redact_secret=*/true);
  out["worktree"] = agent.worktree ? boost::json::value(agent.worktree->options) : boost::json::value(nullptr);
  out["backendConfig"] = agent.backend_config;
  out["backendArgs"] = std::move(backend_args);
  out["lockedFields"] = strings(agent.locked_fields);
  out["unlockedFields"] = strings(agent.unlocked_fields);
  out["launcher"] = optional_string(agent.launcher);
  if (agent.inline_launcher) out["launcher"] = boost::json::object{{"inline", strings(*agent.inline_launcher)}};
  out["executionEnvironment"] = optional_string(agent.execution_environment);
  out["instructions"] = agent.instructions;
  return out;
}

boost::json::object to_json(const ResolvedTask& task) {
  return {{"id", task.id}, {"title", task.title}, {"body", task.body}, {"source", task.source},
          {"hooks", core::to_json(task.hooks)}};
}

boost::json::object to_json(const AssignmentDefinition& assignment) {
  boost::json::array tasks;
  for (const auto& task : assignment.tasks) tasks.emplace_back(to_json(task));
  boost::json::object out;
  out["name"] = assignment.name;
  out["description"] = assignment.description;
  out["cwd"] = optional_string(assignment.cwd);
  out["message"] = optional_string(assignment.message);
  out["maxRetries"] = assignment.max_retries;
  out["taskPrompt"] = assignment.task_prompt;
  out["notify"] = core::to_json(assignment.notify, /*redact_secret=*/true);
  out["schedule"] = assignment.schedule;
  out["callerInstructions"] = assignment.caller_instructions;
  out["vars"] = var_specs_to_json(assignment.vars);
  out["tasks"] = std::move(tasks);
  out["hooks"] = core::to_json(assignment.hooks);
  out["worktree"] = assignment.worktree ? boost::json::value(assignment.worktree->options) : boost::json::value(nullptr);
  out["lockedFields"] = strings(assignment.locked_fields);
  out["instructions"] = assignment.instructions;
  return out;
}

boost::json::object to_json(const LauncherDefinition& launcher) {
  boost::json::object env;
  for (const auto& [name, value] : launcher.env) env[name] = value;
  return {{"name", launcher.name}, {"description", launcher.description},
          {"command", strings(launcher.command)}, {"env", std::move(env)}};
}

boost::json::object to_json(const EnvironmentDefinition& environment) {
  boost::json::object env;
  for (const auto& [name, value] : environment.env) env[name] = value;
  boost::json::object out{{"name", environment.name}, {"description", environment.description},
                          {"kind", environment.kind}, {"env", std::move(env)}};
  boost::json::array mounts;
  for (const auto& m : environment.mounts)
    mounts.emplace_back(environment.container
                            ? boost::json::object{{"hostPath", m.source}, {"containerPath", m.target},
                                                  {"mode", m.read_only ? "ro" : "rw"}}
                            : boost::json::object{{"source", m.source}, {"target", m.target}, {"readOnly", m.read_only}});
  out["network"] = environment.network.empty() ? boost::json::value(nullptr) : boost::json::value(environment.network);
  out["mounts"] = std::move(mounts);
  if (environment.container) {
    for (auto& [key, value] : core::to_json(*environment.container)) out[key] = std::move(value);
  } else {
    out["extraArgs"] = strings(environment.extra_args);
    out["bwrap"] = environment.program;
  }
  return out;
}

boost::json::object to_json(const TaskDefinition& task) {
  return {{"id", task.id}, {"title", task.title}, {"body", task.body}, {"hooks", core::to_json(task.hooks)}};
}

boost::json::object to_summary_json(const AgentDefinition& agent) {
  return {{"name", agent.name},
          {"sourcePath", agent.source_path.string()},
          {"description", agent.description},
          {"backend", agent.backend},
          {"model", optional_string(agent.model)},
          {"effort", optional_string(agent.effort)},
          {"launcher", agent.inline_launcher ? boost::json::value("inline") : optional_string(agent.launcher)},
          {"executionEnvironment", optional_string(agent.execution_environment)}};
}

boost::json::object to_summary_json(const AssignmentDefinition& assignment) {
  boost::json::array vars;
  for (const auto& spec : assignment.vars) vars.emplace_back(spec.name);
  return {{"name", assignment.name},
          {"sourcePath", assignment.source_path.string()},
          {"description", assignment.description},
          {"vars", std::move(vars)},
          {"taskCount", static_cast<std::int64_t>(assignment.tasks.size())}};
}

boost::json::object to_summary_json(const LauncherDefinition& launcher) {
  return {{"name", launcher.name},
          {"sourcePath", launcher.source_path.string()},
          {"description", launcher.description},
          {"command", strings(launcher.command)}};
}

boost::json::object to_summary_json(const EnvironmentDefinition& environment) {
  boost::json::value network = nullptr;
  if (!environment.network.empty()) network = environment.network;
  return {{"name", environment.name},
          {"sourcePath", environment.source_path.string()},
          {"description", environment.description},
          {"kind", environment.kind},
          {"network", std::move(network)}};
}

boost::json::object to_summary_json(const TaskDefinition& task) {
  // Lists of every kind share `name`; for tasks it is the id.
  return {{"name", task.id},
          {"id", task.id},
          {"sourcePath", task.source_path.string()},
          {"description", task.title},
          {"title", task.title}};
}

boost::json::object to_detail_json(const AgentDefinition& agent) { return detail("agent", "agent", agent); }
boost::json::object to_detail_json(const AssignmentDefinition& assignment) {
  return detail("assignment", "assignment", assignment);
}
boost::json::object to_detail_json(const LauncherDefinition& launcher) {
  return detail("launcher", "launcher", launcher);
}
boost::json::object to_detail_json(const EnvironmentDefinition& environment) {
  return detail("environment", "environment", environment);
}
boost::json::object to_detail_json(const TaskDefinition& task) { return detail("task", "task", task); }

boost::json::object to_json(const ListResult<AgentDefinition>& list) { return list_json("agent", list); }
boost::json::object to_json(const ListResult<AssignmentDefinition>& list) {
  return list_json("assignment", list);
}
boost::json::object to_json(const ListResult<LauncherDefinition>& list) { return list_json("launcher", list); }
boost::json::object to_json(const ListResult<EnvironmentDefinition>& list) {
  return list_json("environment", list);
}
boost::json::object to_json(const ListResult<TaskDefinition>& list) { return list_json("task", list); }

}  // namespace agentry::definitions

#include "core/placement.hpp"
#include "definitions/dialect.hpp"
#include "definitions/document.hpp"
#include "definitions/field_reader.hpp"
#include "definitions/parsers.hpp"
#include "definitions/project_trust.hpp"

#include <algorithm>
#include <limits>

namespace agentry::definitions {
namespace {

/// backendConfig: backend name -> a map of that backend's settings, kept as JSON.
boost::json::object read_backend_config(FieldReader& reader) {
  boost::json::object out;
  const YamlNode* node = reader.take("backendConfig");
  if (node == nullptr) return out;
  const std::string field = reader.field("backendConfig");
  if (!node->is_map()) {
    reader.diag().error(field, "must be a map of backend name to settings, not " +
                                   std::string(describe_kind(*node)));
    return out;
  }
  for (const auto& [backend, settings] : node->entries) {
    if (!settings.is_map() && !settings.is_null()) {
      reader.diag().error(join_field(field, backend),
                          "must be a map of settings for backend '" + backend + "', not " +
                              std::string(describe_kind(settings)));
      continue;
    }
    out[backend] = settings.is_null() ? boost::json::value(boost::json::object()) : to_json(settings);
  }
  return out;
}

/// backendArgs: backend name -> { extraArgs: [strings] }.
std::map<std::string, BackendArgs> read_backend_args(FieldReader& reader) {
  std::map<std::string, BackendArgs> out;
  const YamlNode* node = reader.take("backendArgs");
  if (node == nullptr) return out;
  const std::string field = reader.field("backendArgs");
  if (!node->is_map()) {
    reader.diag().error(field, "must be a map of backend name to { extraArgs: [...] }, not " +
                                   std::string(describe_kind(*node)));
    return out;
  }
  for (const auto& [backend, args] : node->entries) {
    const std::string backend_field = join_field(field, backend);
    if (!args.is_map()) {
      reader.diag().error(backend_field, "must be a map like { extraArgs: [\"--flag\"] }, not " +
                                             std::string(describe_kind(args)));
      continue;
    }
    FieldReader args_reader(args, backend_field, reader.diag());
    BackendArgs parsed;
    parsed.extra_args = args_reader.string_list("extraArgs").value_or(std::vector<std::string>{});
    args_reader.warn_unknown_keys();
    out[backend] = std::move(parsed);
  }
  return out;
}

/// placement: { labels: [gpu, region=eu] }: what a member needs to run the agent.
std::vector<std::string> read_placement_labels(FieldReader& reader) {
  const YamlNode* node = reader.take("placement");
  if (node == nullptr) return {};
  const std::string field = reader.field("placement");
  if (!node->is_map()) {
    reader.diag().error(field, "must be a map like { labels: [gpu] }, not " + std::string(describe_kind(*node)));
    return {};
  }
  FieldReader placement(*node, field, reader.diag());
  auto labels = placement.string_list("labels").value_or(std::vector<std::string>{});
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (!core::is_valid_label(labels[i]))
      reader.diag().error(index_field(join_field(field, "labels"), i),
                          "'" + labels[i] + "' is not a label: 1-128 letters, digits and . _ - : = /");
  placement.warn_unknown_keys();
  return labels;
}

}  // namespace

std::optional<AgentDefinition> parse_agent(const Location& location, const Roots& roots,
                                           Diagnostics& diag) {
  auto document = read_document(location.file, DocumentFormat::markdown, roots.getenv, diag,
                                env_allow_for(location.file, roots));
  if (!document) return std::nullopt;
  FieldReader reader(document->fields, "", diag);
  check_schema_version(reader);
  const auto name = definition_name(reader, location);
  // Each of these can choose the program the backend runs (a command, a binary, an
  // exec step, a flag that names one) or wraps it (a launcher).
  for (auto [field, what] : {std::pair{"backendConfig", "configures the backend, which can choose the program it runs"},
                             std::pair{"backendArgs", "passes arguments to the backend's program, which can name another"},
                             std::pair{"launcher", "names a launcher, a program that starts the agent"}})
    if (document->fields.find(field) != nullptr) refuse_if_untrusted(location.file, roots, diag, field, what);

  AgentDefinition agent;
  agent.source_path = location.file;
  agent.description = reader.string("description").value_or("");
  agent.backend = reader.required_string("backend");
  agent.model = reader.string("model");
  agent.effort = reader.string("effort");
  if (agent.effort &&
      in_agent_runner_dialect(document->fields,
                              {"description", "taskPrompt", "unlockedFields", "notify", "worktree", "placement"}, roots) &&
      std::find(agent_runner_effort_levels.begin(), agent_runner_effort_levels.end(), *agent.effort) ==
          agent_runner_effort_levels.end())
    diag.error("effort", "'" + *agent.effort + "' is not an effort level: use off, minimal, low, medium, high, xhigh "
                         "or max (" + std::string(dialect_reason) + ")");
  // Absent: default_agent_timeout_sec. 0: no limit, and the only way to ask for none.
  if (auto timeout = reader.integer("timeoutSec", 0, std::numeric_limits<int>::max())) {
    agent.timeout_sec = static_cast<int>(*timeout);
  }
  agent.budget = read_budget(reader);
  agent.unrestricted = reader.boolean("unrestricted").value_or(true);
  agent.task_prompt = reader.boolean("taskPrompt").value_or(true);
  agent.backend_config = read_backend_config(reader);
  agent.backend_args = read_backend_args(reader);
  agent.locked_fields = read_locked_fields(reader);
  agent.unlocked_fields = reader.string_list("unlockedFields").value_or(std::vector<std::string>{});
  for (std::size_t i = 0; i < agent.unlocked_fields.size(); ++i) {
    const auto& field = agent.unlocked_fields[i];
    const auto& lockable = default_locked_overrides();
    if (std::find(lockable.begin(), lockable.end(), field) == lockable.end())
      diag.error(index_field("unlockedFields", i), "'" + field + "' is not locked by default; only " +
                                                       "backendConfig, launcher, environment, backend and "
                                                       "unrestricted can be unlocked");
  }
  if (const YamlNode* inline_launcher = document->fields.find("launcher"); inline_launcher && inline_launcher->is_map()) {
    // agent-runner's inline launcher: {command: one program, args: [...]}.
    FieldReader launcher(*reader.take("launcher"), "launcher", diag);
    std::vector<std::string> command{launcher.required_string("command")};
    if (!command.front().empty() && command.front().find_first_of(" \t") != std::string::npos)
      diag.error("launcher.command", "must be one program (put its arguments in args)");
    for (auto& a : launcher.string_list("args").value_or(std::vector<std::string>{})) command.push_back(std::move(a));
    launcher.refuse_unknown_keys();
    agent.inline_launcher = std::move(command);
  } else {
    agent.launcher = reader.string("launcher");
  }
  if (agent.launcher && !is_valid_name(Kind::launcher, *agent.launcher)) {
    diag.error("launcher", "'" + *agent.launcher +
                               "' is not a launcher name (the file name of launchers/<name>.yaml)");
  }
  // Picks one of the user's environments (an untrusted project's own are refused when
  // loaded), so an untrusted project's agent may name one: it only confines the agent.
  agent.execution_environment = reader.string("executionEnvironment");
  if (agent.execution_environment && !is_valid_name(Kind::environment, *agent.execution_environment)) {
    diag.error("executionEnvironment", "'" + *agent.execution_environment +
                                           "' is not an environment name (the file name of environments/<name>.yaml)");
  }
  agent.notify = reader.notify_targets("notify", "agent");
  check_untrusted_notify(location.file, roots, diag, agent.notify, "notify");
  agent.worktree = read_worktree_option(reader, "agent", location.file);
  agent.placement_labels = read_placement_labels(reader);
  agent.instructions = std::move(document->body);
  reader.warn_unknown_keys();

  if (name && *name == reserved_agent_name)
    diag.error("name", "'" + *name + "' is reserved for the agent a run gets when it names none and gives a "
                                     "backend (an ad-hoc agent); rename this one");
  if (!name || diag.has_errors()) return std::nullopt;
  agent.name = *name;
  return agent;
}

}  // namespace agentry::definitions

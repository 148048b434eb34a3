#include "definitions/dialect.hpp"
#include "definitions/document.hpp"
#include "definitions/field_reader.hpp"
#include "definitions/parsers.hpp"
#include "definitions/project_trust.hpp"
#include "definitions/template.hpp"

#include <algorithm>

namespace agentry::definitions {
namespace {

/// Warns about placeholders that no declared var and no built-in key fills: at run
/// time they stay in the text as written, which is rarely what the author meant.
void check_template_keys(const AssignmentDefinition& assignment, Diagnostics& diag) {
  std::vector<std::string> available = builtin_template_keys();
  for (const auto& spec : assignment.vars) available.push_back(spec.name);
  auto check = [&](const std::string& field, std::string_view text) {
    std::vector<std::string> unknown;
    for (auto& key : template_keys(text))
      if (std::find(available.begin(), available.end(), key) == available.end()) unknown.push_back(std::move(key));
    if (!unknown.empty()) diag.warn(field, describe_unknown_keys(unknown, available));
  };
  check("body", assignment.instructions);
  if (assignment.message) check("message", *assignment.message);
  check("callerInstructions", assignment.caller_instructions);
  for (std::size_t i = 0; i < assignment.tasks.size(); ++i) {
    check(index_field("tasks", i) + ".title", assignment.tasks[i].title);
    check(index_field("tasks", i) + ".body", assignment.tasks[i].body);
  }
}

/// agent-runner read a var with the `env` source and no envName from the variable named
/// like the var; agentry reads AGENTRY_VAR_<NAME>. A file written for agent-runner is
/// told which one it now reads, and how to keep the old one.
void warn_env_names(const std::vector<VarSpec>& vars, const YamlNode& fields, const Roots& roots, Diagnostics& diag) {
  bool dialect_checked = false;
  bool dialect = false;
  for (const auto& spec : vars) {
    if (!spec.allows(VarSource::env) || !spec.env.empty()) continue;
    if (!dialect_checked) {
      dialect = in_agent_runner_dialect(fields, {"description", "taskPrompt", "notify", "worktree", "placement"}, roots);
      dialect_checked = true;
    }
    if (!dialect) return;
    diag.warn("vars." + spec.name, "reads the environment variable " + spec.env_name() +
                                       ", not " + spec.name + " as agent-runner did; add 'envName: " + spec.name +
                                       "' to read that one (" + std::string(dialect_reason) + ")");
  }
}

}  // namespace

std::optional<AssignmentDefinition> parse_assignment(const Location& location, const Roots& roots,
                                                     Diagnostics& diag) {
  auto document = read_document(location.file, DocumentFormat::markdown, roots.getenv, diag,
                                env_allow_for(location.file, roots));
  if (!document) return std::nullopt;
  FieldReader reader(document->fields, "", diag);
  check_schema_version(reader);
  const auto name = definition_name(reader, location);

  AssignmentDefinition assignment;
  assignment.source_path = location.file;
  assignment.description = reader.string("description").value_or("");
  assignment.cwd = reader.string("cwd");
  assignment.message = reader.string("message");
  if (auto retries = reader.integer("maxRetries", 0, 20)) assignment.max_retries = static_cast<int>(*retries);
  assignment.task_prompt = reader.boolean("taskPrompt").value_or(true);
  assignment.budget = read_budget(reader);
  assignment.schedule = reader.json("schedule").value_or(nullptr);
  assignment.notify = reader.notify_targets("notify", "assignment");
  check_untrusted_notify(location.file, roots, diag, assignment.notify, "notify");
  assignment.caller_instructions = reader.string("callerInstructions").value_or("");
  if (const YamlNode* vars = reader.take("vars")) {
    assignment.vars = read_var_specs(*vars, "vars", diag);
    for (const auto& spec : assignment.vars)
      if (spec.allows(VarSource::env))
        refuse_env_if_untrusted(location.file, roots, diag, "vars." + spec.name + ".env", spec.env_name());
    warn_env_names(assignment.vars, document->fields, roots, diag);
  }
  if (const YamlNode* tasks = reader.take("tasks")) {
    assignment.tasks = read_tasks(*tasks, "tasks", location.file, roots, diag);
  }
  if (const YamlNode* hooks = reader.take("hooks")) {
    assignment.hooks = read_hooks(*hooks, "hooks", "assignment", location.file, roots, diag);
  }
  assignment.worktree = read_worktree_option(reader, "assignment", location.file);
  assignment.locked_fields = read_locked_fields(reader);
  assignment.instructions = std::move(document->body);
  reader.warn_unknown_keys();
  check_template_keys(assignment, diag);

  if (!name || diag.has_errors()) return std::nullopt;
  assignment.name = *name;
  return assignment;
}

}  // namespace agentry::definitions

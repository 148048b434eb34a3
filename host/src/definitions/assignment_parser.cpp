#include "definitions/document.hpp"
#include "definitions/field_reader.hpp"
#include "definitions/parsers.hpp"

namespace agentry::definitions {

std::optional<AssignmentDefinition> parse_assignment(const Location& location, const Roots& roots,
                                                     Diagnostics& diag) {
  auto document = read_document(location.file, DocumentFormat::markdown, roots.getenv, diag);
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
  assignment.schedule = reader.json("schedule").value_or(nullptr);
  assignment.caller_instructions = reader.string("callerInstructions").value_or("");
  if (const YamlNode* vars = reader.take("vars")) {
    assignment.vars = read_var_specs(*vars, "vars", diag);
  }
  if (const YamlNode* tasks = reader.take("tasks")) {
    assignment.tasks = read_tasks(*tasks, "tasks", location.file, roots, diag);
  }
  assignment.locked_fields = read_locked_fields(reader);
  assignment.instructions = std::move(document->body);
  reader.warn_unknown_keys();

  if (!name || diag.has_errors()) return std::nullopt;
  assignment.name = *name;
  return assignment;
}

}  // namespace agentry::definitions

#include "definitions/document.hpp"
#include "definitions/field_reader.hpp"
#include "definitions/parsers.hpp"
#include "definitions/project_trust.hpp"

namespace agentry::definitions {

std::optional<TaskDefinition> parse_task_definition(const Location& location, const Roots& roots,
                                                    Diagnostics& diag) {
  auto document = read_document(location.file, DocumentFormat::markdown, roots.getenv, diag,
                                env_allow_for(location.file, roots));
  if (!document) return std::nullopt;
  FieldReader reader(document->fields, "", diag);
  check_schema_version(reader);

  TaskDefinition task;
  task.id = location.name.value_or(location.file.stem().string());
  // agent-runner task files may say their id; it must be the one their place gives.
  if (auto declared = reader.string("id"); declared && *declared != task.id) {
    diag.warn("id", "is '" + *declared + "' but the file's location makes it '" + task.id +
                        "'; the task definition is skipped until they match");
    return std::nullopt;
  }
  task.source_path = location.file;
  task.title = reader.string("title").value_or(task.id);
  if (task.title.empty()) task.title = task.id;
  if (const YamlNode* hooks = reader.take("hooks")) {
    task.hooks = read_hooks(*hooks, "hooks", "task:" + task.id, location.file, roots, diag);
    for (const auto& hook : task.hooks)
      if (hook.phase != core::HookPhase::task_transition)
        diag.error("hooks", "hook '" + hook.id + "' has phase " + std::string(core::to_string(hook.phase)) +
                                "; a task definition's hooks run at taskTransition only (declare others on the assignment)");
  }
  task.body = std::move(document->body);
  reader.warn_unknown_keys();

  if (diag.has_errors()) return std::nullopt;
  return task;
}

}  // namespace agentry::definitions

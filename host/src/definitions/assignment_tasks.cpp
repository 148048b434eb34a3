// Resolving an assignment's `tasks` list at load time. Items are an inline map
// {id, title, body, hooks}, a task definition id ("review/check"), or a "./" path to a
// task file next to the assignment.

#include "definitions/field_reader.hpp"
#include "definitions/parsers.hpp"

#include <map>

namespace fs = std::filesystem;

namespace agentry::definitions {
namespace {

std::optional<ResolvedTask> inline_task(const YamlNode& node, const std::string& field, const fs::path& assignment_file,
                                        const Roots& roots, Diagnostics& diag) {
  FieldReader reader(node, field, diag);
  ResolvedTask task;
  task.id = reader.required_string("id");
  task.title = reader.string("title").value_or("");
  if (task.title.empty()) task.title = task.id;
  task.body = reader.string("body").value_or("");
  task.source = "inline";
  // agent-runner's `tasks[].hooks`: taskTransition hooks that see only this task.
  bool hooks_ok = true;
  if (const YamlNode* hooks = reader.take("hooks"); hooks && !task.id.empty()) {
    task.hooks = read_hooks(*hooks, reader.field("hooks"), "task:" + task.id, assignment_file, roots, diag);
    for (const auto& hook : task.hooks)
      if (hook.phase != core::HookPhase::task_transition) {
        diag.error(reader.field("hooks"), "hook '" + hook.id + "' has phase " + std::string(core::to_string(hook.phase)) +
                                              "; a task's hooks run at taskTransition only");
        hooks_ok = false;
      }
  }
  reader.warn_unknown_keys();
  if (task.id.empty() || !hooks_ok) return std::nullopt;
  return task;
}

/// Reads a task file with its own diagnostics, then reports its problems here too, so
/// the assignment's error says which item pulled the broken file in.
std::optional<TaskDefinition> read_task_file(const Location& location, const Roots& roots,
                                             const std::string& field, const std::string& what,
                                             Diagnostics& diag) {
  Diagnostics task_diag(location.file.string());
  auto task = parse_task_definition(location, roots, task_diag);
  diag.add_warnings(task_diag.warnings());
  if (!task) {
    diag.error(field, what + " (" + location.file.string() + ") is invalid; see the problems reported for that file");
    diag.add_errors(task_diag.errors());
  }
  return task;
}

std::optional<ResolvedTask> file_task(const std::string& reference, const fs::path& assignment_file,
                                      const Roots& roots, const std::string& field, Diagnostics& diag) {
  const fs::path base = assignment_file.parent_path().lexically_normal();
  const fs::path relative = fs::path(reference).lexically_normal();
  // A project's .agentry/ may come from someone else's repository: keep its task
  // files inside the assignment's own directory.
  if (relative.empty() || *relative.begin() == "..") {
    diag.error(field, "'" + reference + "' points outside the assignment's directory; task files must be inside " +
                          base.string());
    return std::nullopt;
  }
  const fs::path file = base / relative;
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    diag.error(field, "'" + reference + "' names no file (looked for " + file.string() + ")");
    return std::nullopt;
  }
  fs::path id = relative;
  id.replace_extension();
  auto task = read_task_file(Location{file, id.generic_string()}, roots, field, "task file '" + reference + "'", diag);
  if (!task) return std::nullopt;
  return ResolvedTask{task->id, task->title, task->body, "file:" + file.string(), task->hooks};
}

std::optional<ResolvedTask> definition_task(const std::string& id, const Roots& roots,
                                            const std::string& field, Diagnostics& diag) {
  if (!is_valid_name(Kind::task, id)) {
    diag.error(field, "'" + id + "' is neither a task definition id (like review/check) nor a path starting with './'");
    return std::nullopt;
  }
  auto location = locate(roots, Kind::task, id, std::nullopt);
  if (!location) {
    diag.error(field, location.error().message);
    return std::nullopt;
  }
  auto task = read_task_file(*location, roots, field, "task definition '" + id + "'", diag);
  if (!task) return std::nullopt;
  return ResolvedTask{task->id, task->title, task->body, "definition:" + task->id, task->hooks};
}

}  // namespace

std::vector<ResolvedTask> read_tasks(const YamlNode& node, const std::string& field,
                                     const fs::path& assignment_file, const Roots& roots, Diagnostics& diag) {
  std::vector<ResolvedTask> out;
  if (!node.is_sequence()) {
    diag.error(field, "must be a list of tasks, not " + std::string(describe_kind(node)));
    return out;
  }
  std::map<std::string, std::string> seen;  // id -> the item that first used it
  for (std::size_t i = 0; i < node.items.size(); ++i) {
    const YamlNode& item = node.items[i];
    const std::string item_field = index_field(field, i);
    std::optional<ResolvedTask> task;
    if (item.is_map()) {
      task = inline_task(item, item_field, assignment_file, roots, diag);
    } else if (item.is_scalar() && item.text.rfind("./", 0) == 0) {
      task = file_task(item.text, assignment_file, roots, item_field, diag);
    } else if (item.is_scalar() && !item.text.empty()) {
      task = definition_task(item.text, roots, item_field, diag);
    } else {
      diag.error(item_field, "must be a task id, a './' path to a task file, or a map { id, title, body }, not " +
                                 std::string(describe_kind(item)));
    }
    if (!task) continue;
    const auto [previous, inserted] = seen.emplace(task->id, item_field);
    if (!inserted) {
      diag.error(item_field, "duplicate task id '" + task->id + "' (already used by " + previous->second + ")");
      continue;
    }
    out.push_back(std::move(*task));
  }
  return out;
}

}  // namespace agentry::definitions

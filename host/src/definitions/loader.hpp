#pragma once
// The definitions module's front door: load one definition by name or path, or list all
// of a kind. Edits apply without a restart: names are located on every call, listings
// read every file, and a single load reuses an earlier parse of the same file only while
// the file's size, times and inode are those it had then (and it had been unchanged for
// 2 s when it was read), the environment variables it interpolates have the same values,
// and it reads no other file (an assignment with file or definition tasks).
//
// Names are searched in <project_dir>/.agentry first, then in the config directory; the
// first file found for a name is the definition, even when it is broken (a broken
// project file never silently falls back to the config directory's).

#include "core/result.hpp"
#include "definitions/agent.hpp"
#include "definitions/assignment.hpp"
#include "definitions/environment.hpp"
#include "definitions/launcher.hpp"
#include "definitions/problem.hpp"
#include "definitions/roots.hpp"
#include "definitions/task_definition.hpp"
#include "definitions/trigger.hpp"

#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace agentry::definitions {

/// A listing: the usable definitions sorted by name, and what was wrong with the rest
/// (plus the non-fatal warnings of the usable ones). A broken file never aborts a listing.
template <class T>
struct ListResult {
  std::vector<T> entries;
  std::vector<Problem> warnings;
};

// `target` is a name ("planner", "review/check") or a direct path: absolute, or
// relative ("./agents/planner/agent.md") and then resolved against `cwd`.
// Errors: NOT_FOUND (message lists the directories searched), INVALID_REQUEST (bad name,
// relative path without cwd), VALIDATION_FAILED (details: { path, field, problems }).

core::Result<AgentDefinition> load_agent(const Roots& roots, std::string_view target,
                                         const std::optional<std::filesystem::path>& cwd = {});
core::Result<AssignmentDefinition> load_assignment(const Roots& roots, std::string_view target,
                                                   const std::optional<std::filesystem::path>& cwd = {});
core::Result<LauncherDefinition> load_launcher(const Roots& roots, std::string_view target,
                                               const std::optional<std::filesystem::path>& cwd = {});
core::Result<EnvironmentDefinition> load_environment(const Roots& roots, std::string_view target,
                                                     const std::optional<std::filesystem::path>& cwd = {});
core::Result<TaskDefinition> load_task_definition(const Roots& roots, std::string_view target,
                                                  const std::optional<std::filesystem::path>& cwd = {});

/// Triggers come from the config directory alone, by name: `roots.project_dir` is
/// ignored (a project may not open a door into the daemon) and so is a path target.
core::Result<TriggerDefinition> load_trigger(const Roots& roots, std::string_view name);

ListResult<AgentDefinition> list_agents(const Roots& roots);
ListResult<AssignmentDefinition> list_assignments(const Roots& roots);
ListResult<LauncherDefinition> list_launchers(const Roots& roots);
ListResult<EnvironmentDefinition> list_environments(const Roots& roots);
ListResult<TaskDefinition> list_task_definitions(const Roots& roots);
/// Every trigger of the config directory (`roots.project_dir` is ignored).
ListResult<TriggerDefinition> list_triggers(const Roots& roots);

}  // namespace agentry::definitions

#pragma once
// Turning a located file into a typed definition. Each parser reports every problem to
// `diag` and returns nullopt when the definition cannot be used (errors, or a warning
// that skips it, such as a mismatched name).

#include "definitions/agent.hpp"
#include "definitions/assignment.hpp"
#include "definitions/environment.hpp"
#include "definitions/launcher.hpp"
#include "definitions/locator.hpp"
#include "definitions/problem.hpp"
#include "definitions/roots.hpp"
#include "definitions/task_definition.hpp"
#include "definitions/trigger.hpp"
#include "definitions/vars.hpp"
#include "definitions/yaml_node.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace agentry::definitions {

std::optional<AgentDefinition> parse_agent(const Location& location, const Roots& roots,
                                           Diagnostics& diag);
std::optional<AssignmentDefinition> parse_assignment(const Location& location, const Roots& roots,
                                                     Diagnostics& diag);
std::optional<LauncherDefinition> parse_launcher(const Location& location, const Roots& roots,
                                                 Diagnostics& diag);
std::optional<EnvironmentDefinition> parse_environment(const Location& location, const Roots& roots,
                                                       Diagnostics& diag);
std::optional<TaskDefinition> parse_task_definition(const Location& location, const Roots& roots,
                                                    Diagnostics& diag);
std::optional<TriggerDefinition> parse_trigger(const Location& location, const Roots& roots, Diagnostics& diag);

class FieldReader;
/// `env:` (launchers, environments): a map of variable name to value; `FOO:` is "".
std::map<std::string, std::string> read_env(FieldReader& reader);
/// `budget:` (core/usage.hpp), with a problem naming the field when it is not one.
std::optional<core::Budget> read_budget(FieldReader& reader);

/// An assignment's `vars` map.
std::vector<VarSpec> read_var_specs(const YamlNode& node, const std::string& field, Diagnostics& diag);

/// An assignment's `tasks` list, each item resolved to its id, title, body and source.
std::vector<ResolvedTask> read_tasks(const YamlNode& node, const std::string& field,
                                     const std::filesystem::path& assignment_file, const Roots& roots,
                                     Diagnostics& diag);

/// A `hooks:` list (assignments, task definitions); `origin` is "assignment" or "task:<id>".
/// Relative executables resolve against `file`'s directory; a project's `.agentry/`
/// may declare only built-ins that run no executable.
std::vector<core::HookSpec> read_hooks(const YamlNode& node, const std::string& field, const std::string& origin,
                                       const std::filesystem::path& file, const Roots& roots, Diagnostics& diag);

/// A hook's `when:` map into `hook.when` (its phase already set); false on an error.
bool read_hook_when(const YamlNode& when, const std::string& when_field, core::HookSpec& hook, Diagnostics& diag);

/// `worktree: true | {base: <revision>}`: the run gets its own git worktree, as a
/// prepare hook `worktree` of the git-worktree built-in (engine/hooks/hook_runner.hpp).
class FieldReader;
std::optional<core::HookSpec> read_worktree_option(FieldReader& reader, const std::string& origin,
                                                   const std::filesystem::path& file);

}  // namespace agentry::definitions

#include "definitions/loader.hpp"

#include "definitions/locator.hpp"
#include "definitions/parsers.hpp"

namespace fs = std::filesystem;

namespace agentry::definitions {
namespace {

template <class T>
using Parser = std::optional<T> (*)(const Location&, const Roots&, Diagnostics&);

template <class T>
core::Result<T> load(const Roots& roots, Kind kind, std::string_view target,
                     const std::optional<fs::path>& cwd, Parser<T> parse) {
  auto location = locate(roots, kind, target, cwd);
  if (!location) return location.failure();
  Diagnostics diag(location->file.string());
  auto definition = parse(*location, roots, diag);
  if (!definition) {
    // No errors means a warning made the parser skip the file (a mismatched name):
    // for a single load that warning is the answer.
    return core::fail(validation_error(diag.has_errors() ? diag.errors() : diag.warnings()));
  }
  definition->warnings = diag.warnings();
  return std::move(*definition);
}

template <class T>
ListResult<T> list(const Roots& roots, Kind kind, Parser<T> parse) {
  ListResult<T> out;
  for (const auto& location : enumerate(roots, kind, out.warnings)) {
    Diagnostics diag(location.file.string());
    auto definition = parse(location, roots, diag);
    out.warnings.insert(out.warnings.end(), diag.errors().begin(), diag.errors().end());
    out.warnings.insert(out.warnings.end(), diag.warnings().begin(), diag.warnings().end());
    if (!definition) continue;
    definition->warnings = diag.warnings();
    out.entries.push_back(std::move(*definition));
  }
  return out;
}

}  // namespace

core::Result<AgentDefinition> load_agent(const Roots& roots, std::string_view target,
                                         const std::optional<fs::path>& cwd) {
  return load<AgentDefinition>(roots, Kind::agent, target, cwd, &parse_agent);
}

core::Result<AssignmentDefinition> load_assignment(const Roots& roots, std::string_view target,
                                                   const std::optional<fs::path>& cwd) {
  return load<AssignmentDefinition>(roots, Kind::assignment, target, cwd, &parse_assignment);
}

core::Result<LauncherDefinition> load_launcher(const Roots& roots, std::string_view target,
                                               const std::optional<fs::path>& cwd) {
  return load<LauncherDefinition>(roots, Kind::launcher, target, cwd, &parse_launcher);
}

core::Result<TaskDefinition> load_task_definition(const Roots& roots, std::string_view target,
                                                  const std::optional<fs::path>& cwd) {
  return load<TaskDefinition>(roots, Kind::task, target, cwd, &parse_task_definition);
}

ListResult<AgentDefinition> list_agents(const Roots& roots) {
  return list<AgentDefinition>(roots, Kind::agent, &parse_agent);
}

ListResult<AssignmentDefinition> list_assignments(const Roots& roots) {
  return list<AssignmentDefinition>(roots, Kind::assignment, &parse_assignment);
}

ListResult<LauncherDefinition> list_launchers(const Roots& roots) {
  return list<LauncherDefinition>(roots, Kind::launcher, &parse_launcher);
}

ListResult<TaskDefinition> list_task_definitions(const Roots& roots) {
  return list<TaskDefinition>(roots, Kind::task, &parse_task_definition);
}

}  // namespace agentry::definitions

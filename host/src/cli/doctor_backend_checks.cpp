// `doctor`'s checks of definitions and backends (doctor_checks.hpp): they belong
// together, since whether an agent CLI is missing matters only when an agent uses its
// backend, and an agent is broken when its backend is not loaded.

#include "cli/doctor_checks.hpp"

#include "cli/programs.hpp"
#include "core/run.hpp"
#include "definitions/loader.hpp"
#include "plugin_host/plugin_registry.hpp"

#include <map>
#include <set>
#include <system_error>

namespace agentry::cli {
namespace fs = std::filesystem;

namespace {

// Every problem of one kind's listing: a file none of whose definitions could be used
// fails, a usable definition's warning warns.
template <class List>
void add_problems(const List& listing, const fs::path& config_dir, DoctorChecks& out) {
  std::set<std::string> usable;
  for (const auto& entry : listing.entries) usable.insert(entry.source_path.string());
  for (const auto& problem : listing.warnings) {
    const std::string file = problem.path.empty() ? config_dir.string() : problem.path;
    const bool broken = !problem.path.empty() && !usable.contains(problem.path);
    DoctorCheck check{"definitions: " + fs::path(file).lexically_relative(config_dir).string(),
                      broken ? CheckStatus::fail : CheckStatus::warn, definitions::describe(problem),
                      "edit " + file + (problem.field.empty() ? "" : " (" + problem.field + ")") +
                          (broken ? ": until then it cannot be used" : "") + "; see docs/definitions.md"};
    out.push_back(std::move(check));
  }
}

/// The program an agent's backendConfig names (command: [program, ...] or "program";
/// binary: "program"), if any.
std::string configured_program(const definitions::AgentDefinition& agent) {
  const auto config = definitions::backend_config_for(agent, agent.backend);
  for (const char* key : {"binary", "command"}) {
    const auto* v = config.if_contains(key);
    if (!v) continue;
    if (v->is_string()) return std::string(v->get_string());
    if (v->is_array() && !v->get_array().empty() && v->get_array().front().is_string())
      return std::string(v->get_array().front().get_string());
  }
  return "";
}

void check_program(const std::string& name, const std::string& program, bool needed, const std::string& fix,
                   const std::string& path_variable, DoctorChecks& out) {
  auto found = find_program(program, path_variable);
  if (!found) {
    const std::string detail = program + " is not " +
                               (program.find('/') == std::string::npos ? "on PATH" : "executable") +
                               (needed ? "" : " (no agent uses it yet)");
    out.push_back({name, needed ? CheckStatus::fail : CheckStatus::warn, detail, fix});
    return;
  }
  auto version = program_version(found->string());
  if (version.ok)
    out.push_back({name, CheckStatus::ok, found->string() + ": " + version.text, ""});
  else
    out.push_back(
        {name, CheckStatus::warn, version.text, "run `" + found->string() + " --version` to see why; " + fix});
}

}  // namespace

void check_definitions_and_backends(const DoctorInput& in, DoctorChecks& out) {
  const fs::path& config_dir = in.paths.config_dir;
  const fs::path examples = in.paths.binary.parent_path().parent_path() / "share" / "agentry" / "config";
  std::error_code ec;
  std::vector<definitions::AgentDefinition> agents;
  if (!fs::is_directory(config_dir, ec)) {
    out.push_back({"definitions", CheckStatus::warn, "no definitions directory at " + config_dir.string(),
                   "copy the examples: cp -r " + examples.string() + " " + config_dir.string() +
                       " (config/ in the source tree), or set AGENTRY_CONFIG_DIR"});
  } else {
    definitions::Roots roots;
    roots.config_dir = config_dir;
    auto listed_agents = definitions::list_agents(roots);
    auto assignments = definitions::list_assignments(roots);
    auto launchers = definitions::list_launchers(roots);
    auto environments = definitions::list_environments(roots);
    auto tasks = definitions::list_task_definitions(roots);
    const std::size_t before = out.size();
    add_problems(listed_agents, config_dir, out);
    add_problems(assignments, config_dir, out);
    add_problems(launchers, config_dir, out);
    add_problems(environments, config_dir, out);
    add_problems(tasks, config_dir, out);
    const std::size_t problems = out.size() - before;
    // The problems are checks of their own (above): the count is not one more.
    out.push_back({"definitions", CheckStatus::ok,
                   std::to_string(listed_agents.entries.size()) + " agents, " +
                       std::to_string(assignments.entries.size()) + " assignments, " +
                       std::to_string(launchers.entries.size()) + " launchers, " +
                       std::to_string(environments.entries.size()) + " environments, " +
                       std::to_string(tasks.entries.size()) + " tasks in " + config_dir.string() +
                       (problems == 0 ? "" : "; " + std::to_string(problems) + " problem(s) above"),
                   ""});
    agents = std::move(listed_agents.entries);
  }

  plugin_host::PluginRegistry registry;
  const auto search = plugin_host::PluginRegistry::default_search_path(config_dir, in.settings.plugin_path);
  registry.load_all(search);
  for (const auto& error : registry.errors())
    out.push_back({"plugin " + fs::path(error.path).filename().string(), CheckStatus::fail, error.message,
                   "rebuild it against this agentry's plugin-api, or remove " + error.path + " (docs/plugin-abi.md)"});
  const auto loaded = registry.backends();
  for (const auto& backend : loaded)
    out.push_back({"backend " + backend.descriptor.id, CheckStatus::ok,
                   backend.descriptor.name + " " + backend.descriptor.version + " loaded", ""});
  if (loaded.empty()) {
    std::string dirs;
    for (const auto& d : search) dirs += (dirs.empty() ? "" : ", ") + d.string();
    out.push_back({"backends", CheckStatus::fail, "no backend plugin found in " + dirs,
                   "install the plugins next to the binary (<prefix>/lib/agentry/plugins, as the package does) or "
                   "name their directory in AGENTRY_PLUGIN_PATH"});
  }

  // Which backends agents use, and the programs they name themselves.
  std::set<std::string> used;
  for (const auto& agent : agents) {
    used.insert(agent.backend);
    if (agent.backend != core::passive_backend && !registry.has(agent.backend)) {
      out.push_back(
          {"agent " + agent.name, CheckStatus::fail, "uses backend " + agent.backend + ", which is not loaded",
           "install the " + agent.backend + " plugin, or change `backend:` in " + agent.source_path.string()});
      continue;
    }
    if (auto program = configured_program(agent); !program.empty())
      check_program(
          "agent " + agent.name + ": program", program, true,
          "install " + program + ", or change backendConfig." + agent.backend + " in " + agent.source_path.string(),
          in.env.get("PATH"), out);
  }
  for (const auto& program : backend_programs()) {
    if (!registry.has(program.backend)) continue;
    const std::string name = in.env.has(program.variable) ? in.env.get(program.variable) : program.default_name;
    const std::string what =
        program.backend == "browser" ? "backend browser: Chromium" : "backend " + program.backend + ": agent CLI";
    check_program(what, name, used.contains(program.backend),
                  program.install_hint + ", or set " + program.variable + " to its path", in.env.get("PATH"), out);
  }
}

}  // namespace agentry::cli

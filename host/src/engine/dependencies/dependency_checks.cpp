#include "engine/dependencies/dependency_checks.hpp"

#include "core/clock.hpp"
#include "core/group_id.hpp"
#include "core/ids.hpp"
#include "store/dependency_repository.hpp"
#include "store/transaction.hpp"

#include <algorithm>
#include <deque>
#include <map>

namespace agentry::engine::detail {
namespace json = boost::json;
using core::DependencyType;

namespace {

/// The search gives up (and refuses, to be safe) past this many runs: a graph that
/// large is a mistake, and the check must stay bounded inside the writer.
constexpr std::size_t max_cycle_search = 100000;

core::Failure cycle_error(const std::string& run_id, const std::vector<std::string>& steps) {
  std::string text = run_id;
  for (const auto& step : steps) text += " -> " + step;
  json::array cycle;
  for (const auto& step : steps) cycle.emplace_back(step);
  return core::fail(core::ErrorCode::conflict,
                    "refusing a dependency cycle: " + text +
                        " (a run cannot wait, directly or through a group it belongs to, on itself)",
                    {{"runId", run_id}, {"reason", "cycle"}, {"cycle", std::move(cycle)}});
}

}  // namespace

core::DependencyStatus evaluate_dependency(store::Transaction& c, const core::Dependency& d) {
  core::DependencyStatus s;
  s.dependency = d;
  if (d.type == DependencyType::run) {
    auto target = c.dependencies().point(d.target);
    s.missing = !target;
    if (target) s.status = target->status;
    s.satisfied = target && target->status == core::RunStatus::success;
    return s;
  }
  for (const auto& member : c.dependencies().group_members(d.target)) {
    if (member.archived) {
      s.archived += 1;
      continue;
    }
    s.members += 1;
    if (member.status == core::RunStatus::success) s.succeeded += 1;
  }
  s.missing = s.members == 0;
  s.satisfied = !s.missing && s.succeeded == s.members;
  return s;
}

std::vector<core::DependencyStatus> evaluate_dependencies(store::Transaction& c,
                                                          const std::vector<core::Dependency>& dependencies) {
  std::vector<core::DependencyStatus> out;
  out.reserve(dependencies.size());
  for (const auto& d : dependencies) out.push_back(evaluate_dependency(c, d));
  return out;
}

std::vector<core::DependencyStatus> dependencies_of(store::Transaction& c, const std::string& run_id) {
  return evaluate_dependencies(c, c.dependencies().list(run_id));
}

std::vector<core::Dependent> dependents_of(store::Transaction& c, const core::Run& run) {
  // An archived run no longer counts in its group; only direct dependents wait on it.
  auto edges = c.dependencies().naming(run.id, run.archived ? std::string() : run.run_group_id);
  std::vector<core::Dependent> out;
  for (const auto& edge : edges) {
    if (edge.run_id == run.id) continue;
    auto point = c.dependencies().point(edge.run_id);
    if (!point) continue;
    out.push_back({edge.run_id, point->status, edge.dependency.type, edge.dependency.target});
  }
  return out;
}

std::string describe_status(const core::DependencyStatus& s) {
  std::string name = core::describe(s.dependency);
  if (s.dependency.type == DependencyType::run) {
    if (s.missing) return name + " (no such run)";
    return name + " (" + std::string(core::to_string(*s.status)) + ")";
  }
  if (s.missing) return name + " (no runs in it)";
  return name + " (" + std::to_string(s.succeeded) + " of " + std::to_string(s.members) + " succeeded)";
}

core::Result<void> check_dependencies_met(store::Transaction& c, const core::Run& run, std::string_view operation) {
  std::vector<std::string> unmet;
  json::array details;
  for (const auto& s : dependencies_of(c, run.id)) {
    if (s.satisfied) continue;
    unmet.push_back(describe_status(s));
    details.emplace_back(core::describe(s.dependency));
  }
  if (unmet.empty()) return core::ok();
  std::string list;
  for (const auto& u : unmet) list += (list.empty() ? "" : ", ") + u;
  return core::fail(core::ErrorCode::conflict,
                    "cannot " + std::string(operation) + " run " + run.id + ": it waits on " + list +
                        "; a dependency is met when its run (every non-archived run of its group) ends success. "
                        "Ready the run and the daemon starts it then, or remove the dependencies",
                    {{"runId", run.id}, {"operation", operation}, {"reason", "unmet_dependencies"},
                     {"unmetDependencies", std::move(details)}});
}

core::Result<void> check_no_cycle(store::Transaction& c, const std::string& run_id) {
  // Breadth first from the run along "waits on" edges; `came_from` keeps the way back,
  // so the shortest cycle through the run is named.
  struct Step {
    std::string from;
    std::string label;  // how `from` reaches this run: "<id>" or "group:<g> (<id>)"
  };
  std::map<std::string, Step> came_from;
  std::deque<std::string> queue{run_id};
  std::optional<Step> closing;
  while (!queue.empty() && !closing) {
    const std::string node = queue.front();
    queue.pop_front();
    auto reach = [&](const std::string& to, std::string label) {
      if (closing) return;
      if (to == run_id) {
        closing = Step{node, std::move(label)};
        return;
      }
      if (came_from.count(to)) return;
      came_from.emplace(to, Step{node, std::move(label)});
      queue.push_back(to);
    };
    for (const auto& d : c.dependencies().list(node)) {
      if (d.type == DependencyType::run) {
        reach(d.target, d.target);
      } else {
        for (const auto& m : c.dependencies().group_members(d.target))
          reach(m.id, "group:" + d.target + " (" + m.id + ")");
      }
    }
    if (came_from.size() > max_cycle_search)
      return core::fail(core::ErrorCode::conflict,
                        "run " + run_id + " has too many runs behind its dependencies to check them for cycles",
                        {{"runId", run_id}, {"reason", "too_large"}});
  }
  if (!closing) return core::ok();
  std::vector<std::string> steps{closing->label};
  for (std::string at = closing->from; at != run_id;) {
    const auto& step = came_from.at(at);
    steps.push_back(step.label);
    at = step.from;
  }
  std::reverse(steps.begin(), steps.end());
  return cycle_error(run_id, steps);
}

core::Result<core::Dependency> add_dependency_row(store::Transaction& c, const core::Run& run, core::Dependency d) {
  if (d.type == DependencyType::group)
    if (auto normalized = core::normalize_group_id(d.target)) d.target = std::move(*normalized);
  const std::string name = core::describe(d);
  if (d.type == DependencyType::run ? !core::is_valid_run_id(d.target) : !core::normalize_group_id(d.target))
    return core::fail(core::ErrorCode::invalid_request,
                      d.type == DependencyType::run
                          ? "'" + d.target + "' is not a valid run id (1-64 characters of letters, digits, _ and -)"
                          : "'" + d.target + "' is not a valid group id (" + std::string(core::group_id_rule) + ")",
                      {{"field", d.type == DependencyType::run ? "runId" : "groupId"}});
  if (d.type == DependencyType::run && d.target == run.id)
    return core::fail(core::ErrorCode::conflict, "run " + run.id + " cannot depend on itself",
                      {{"runId", run.id}, {"reason", "self"}, {"dependency", name}});
  auto existing = c.dependencies().list(run.id);
  for (const auto& e : existing)
    if (e.type == d.type && e.target == d.target)
      return core::fail(core::ErrorCode::conflict, "run " + run.id + " already depends on " + name,
                        {{"runId", run.id}, {"reason", "duplicate"}, {"dependency", name}});
  if (existing.size() >= max_dependencies_per_run)
    return core::fail(core::ErrorCode::conflict,
                      "run " + run.id + " already has " + std::to_string(existing.size()) +
                          " dependencies, the most a run may have",
                      {{"runId", run.id}, {"reason", "too_many"}});
  if (d.created_at.empty()) d.created_at = core::now_iso8601();
  // Written first so the search sees the graph as it would be; a refusal rolls the
  // job back (the write queue runs each job in its own savepoint).
  c.dependencies().insert(run.id, d);
  if (auto ok = check_no_cycle(c, run.id); !ok) return ok.failure();
  return d;
}

}  // namespace agentry::engine::detail

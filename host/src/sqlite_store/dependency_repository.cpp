#include "sqlite_store/repositories.hpp"
#include "sqlite_store/sql_lists.hpp"
#include "store/dependency_codec.hpp"

#include <algorithm>
#include <tuple>

namespace agentry::sqlite_store {
namespace {

core::Dependency dependency_at(Statement& s, int first) {
  return store::decode_dependency(s.column_text(first), s.column_text(first + 1), s.column_text(first + 2));
}

RunPoint point_at(Statement& s) {
  return store::decode_run_point(s.column_text(0), s.column_text(1), s.column_bool(2), s.column_text(3));
}

}  // namespace

void DependencyRepository::insert(const std::string& run_id, const core::Dependency& d) {
  auto s = c_.prepare("INSERT INTO dependencies (run_id, dep_type, target, created_at) VALUES (?,?,?,?)");
  s.bind(1, run_id).bind(2, core::to_string(d.type)).bind(3, d.target).bind(4, d.created_at);
  s.run();
}

bool DependencyRepository::remove(const std::string& run_id, core::DependencyType type,
                                  const std::string& target) {
  auto s = c_.prepare("DELETE FROM dependencies WHERE run_id = ? AND dep_type = ? AND target = ?");
  s.bind(1, run_id).bind(2, core::to_string(type)).bind(3, target);
  s.run();
  return c_.changes() > 0;
}

int DependencyRepository::remove_all(const std::string& run_id) {
  auto s = c_.prepare("DELETE FROM dependencies WHERE run_id = ?");
  s.bind(1, run_id);
  s.run();
  return static_cast<int>(c_.changes());
}

std::vector<core::Dependency> DependencyRepository::list(const std::string& run_id) {
  auto s = c_.prepare("SELECT dep_type, target, created_at FROM dependencies WHERE run_id = ? "
                     "ORDER BY created_at, dep_type, target");
  s.bind(1, run_id);
  std::vector<core::Dependency> out;
  while (s.step()) out.push_back(dependency_at(s, 0));
  return out;
}

std::map<std::string, std::vector<core::Dependency>> DependencyRepository::list_many(const std::vector<std::string>& run_ids) {
  std::map<std::string, std::vector<core::Dependency>> out;
  if (run_ids.empty()) return out;
  auto s = c_.prepare("SELECT run_id, dep_type, target, created_at FROM dependencies WHERE run_id IN "
                     "(SELECT value FROM json_each(?)) ORDER BY run_id, created_at, dep_type, target");
  s.bind(1, json_array_text(run_ids));
  while (s.step()) out[s.column_text(0)].push_back(dependency_at(s, 1));
  return out;
}

std::vector<DependencyEdge> DependencyRepository::naming(const std::string& run_id,
                                                         const std::string& group_id) {
  // Two searches of the target index, ordered here: with OR and ORDER BY, SQLite opened
  // two temporary tables for every run's detail, though most runs have no dependents.
  auto s = c_.prepare("SELECT run_id, dep_type, target, created_at FROM dependencies "
                     "WHERE dep_type = 'run' AND target = ? UNION ALL "
                     "SELECT run_id, dep_type, target, created_at FROM dependencies "
                     "WHERE dep_type = 'group' AND target = ?");
  s.bind(1, run_id).bind(2, group_id);
  std::vector<DependencyEdge> out;
  while (s.step()) out.push_back({s.column_text(0), dependency_at(s, 1)});
  std::stable_sort(out.begin(), out.end(), [](const DependencyEdge& a, const DependencyEdge& b) {
    return std::tie(a.dependency.created_at, a.run_id) < std::tie(b.dependency.created_at, b.run_id);
  });
  return out;
}

std::vector<std::string> DependencyRepository::groups_left(const std::string& run_id) {
  // Most databases have no group dependency: then a run's past groups matter to nobody.
  auto any = c_.prepare("SELECT 1 FROM dependencies WHERE dep_type = 'group' LIMIT 1");
  if (!any.step()) return {};
  auto s = c_.prepare("SELECT DISTINCT json_extract(data_json, '$.previous') FROM audit_events "
                     "WHERE run_id = ? AND type = 'run.group_set'");
  s.bind(1, run_id);
  std::vector<std::string> out;
  while (s.step())
    if (auto group = s.column_text(0); !group.empty()) out.push_back(std::move(group));
  return out;
}

bool DependencyRepository::any() { return c_.prepare("SELECT 1 FROM dependencies LIMIT 1").step(); }

std::vector<std::string> DependencyRepository::runs_with_dependencies() {
  auto s = c_.prepare("SELECT DISTINCT run_id FROM dependencies");
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.column_text(0));
  return out;
}

std::optional<RunPoint> DependencyRepository::point(const std::string& run_id) {
  auto s = c_.prepare("SELECT id, status, archived, run_group_id FROM runs WHERE id = ?");
  s.bind(1, run_id);
  if (!s.step()) return std::nullopt;
  return point_at(s);
}

std::vector<RunPoint> DependencyRepository::group_members(const std::string& group_id) {
  auto s = c_.prepare("SELECT id, status, archived, run_group_id FROM runs WHERE run_group_id = ?");
  s.bind(1, group_id);
  std::vector<RunPoint> out;
  while (s.step()) out.push_back(point_at(s));
  return out;
}

}  // namespace agentry::sqlite_store

#include "pg_store/repositories.hpp"
#include "store/dependency_codec.hpp"

namespace agentry::pg_store {
namespace {

core::Dependency dependency_at(const Row& row, int first) {
  return store::decode_dependency(row[first].text(), row[first + 1].text(), row[first + 2].text());
}

RunPoint point_at(const Row& row) {
  return store::decode_run_point(row[0].text(), row[1].text(), row[2].boolean(), row[3].text());
}

std::vector<RunPoint> read_points(const Result& result) {
  std::vector<RunPoint> out;
  for (int i = 0; i < result.rows(); ++i) out.push_back(point_at(result.row(i)));
  return out;
}

std::vector<std::string> first_column(const Result& result) {
  std::vector<std::string> out;
  for (int i = 0; i < result.rows(); ++i) out.push_back(result.row(i)[0].text());
  return out;
}

}  // namespace

void DependencyRepository::insert(const std::string& run_id, const core::Dependency& d) {
  c_.query("INSERT INTO dependencies (run_id, dep_type, target, created_at) VALUES ($1,$2,$3,$4)",
           {run_id, core::to_string(d.type), d.target, d.created_at});
}

bool DependencyRepository::remove(const std::string& run_id, core::DependencyType type,
                                  const std::string& target) {
  return c_.query("DELETE FROM dependencies WHERE run_id = $1 AND dep_type = $2 AND target = $3",
                  {run_id, core::to_string(type), target})
             .affected_rows() > 0;
}

int DependencyRepository::remove_all(const std::string& run_id) {
  return static_cast<int>(c_.query("DELETE FROM dependencies WHERE run_id = $1", {run_id}).affected_rows());
}

std::vector<core::Dependency> DependencyRepository::list(const std::string& run_id) {
  auto result = c_.query("SELECT dep_type, target, created_at FROM dependencies WHERE run_id = $1 "
                         "ORDER BY created_at, dep_type, target",
                         {run_id});
  std::vector<core::Dependency> out;
  for (int i = 0; i < result.rows(); ++i) out.push_back(dependency_at(result.row(i), 0));
  return out;
}

std::map<std::string, std::vector<core::Dependency>> DependencyRepository::list_many(const std::vector<std::string>& run_ids) {
  std::map<std::string, std::vector<core::Dependency>> out;
  if (run_ids.empty()) return out;
  auto result = c_.query("SELECT run_id, dep_type, target, created_at FROM dependencies "
                         "WHERE run_id = ANY($1::text[]) ORDER BY run_id, created_at, dep_type, target",
                         {text_array(run_ids)});
  for (int i = 0; i < result.rows(); ++i) {
    auto row = result.row(i);
    out[row[0].text()].push_back(dependency_at(row, 1));
  }
  return out;
}

std::vector<DependencyEdge> DependencyRepository::naming(const std::string& run_id,
                                                         const std::string& group_id) {
  auto result = c_.query("SELECT run_id, dep_type, target, created_at FROM dependencies "
                         "WHERE (dep_type = 'run' AND target = $1) OR (dep_type = 'group' AND target = $2) "
                         "ORDER BY created_at, run_id",
                         {run_id, group_id});
  std::vector<DependencyEdge> out;
  for (int i = 0; i < result.rows(); ++i) {
    auto row = result.row(i);
    out.push_back({row[0].text(), dependency_at(row, 1)});
  }
  return out;
}

std::vector<std::string> DependencyRepository::groups_left(const std::string& run_id) {
  // Most databases have no group dependency: then a run's past groups matter to nobody.
  if (c_.query("SELECT 1 FROM dependencies WHERE dep_type = 'group' LIMIT 1").rows() == 0) return {};
  // data_json is text the engine serialised, so the cast reads it; a "previous" that is
  // JSON null (or absent) is no group.
  auto result = c_.query("SELECT DISTINCT data_json::json ->> 'previous' FROM audit_events "
                         "WHERE run_id = $1 AND type = 'run.group_set'",
                         {run_id});
  std::vector<std::string> out;
  for (int i = 0; i < result.rows(); ++i)
    if (auto group = result.row(i)[0].optional_text(); group && !group->empty()) out.push_back(std::move(*group));
  return out;
}

bool DependencyRepository::any() { return c_.query("SELECT 1 FROM dependencies LIMIT 1").rows() > 0; }

std::vector<std::string> DependencyRepository::runs_with_dependencies() {
  return first_column(c_.query("SELECT DISTINCT run_id FROM dependencies"));
}

std::optional<RunPoint> DependencyRepository::point(const std::string& run_id) {
  auto result = c_.query("SELECT id, status, archived, run_group_id FROM runs WHERE id = $1", {run_id});
  if (result.rows() == 0) return std::nullopt;
  return point_at(result.row(0));
}

std::vector<RunPoint> DependencyRepository::group_members(const std::string& group_id) {
  return read_points(
      c_.query("SELECT id, status, archived, run_group_id FROM runs WHERE run_group_id = $1", {group_id}));
}

}  // namespace agentry::pg_store

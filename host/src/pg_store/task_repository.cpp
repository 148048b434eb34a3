#include "pg_store/repositories.hpp"

namespace agentry::pg_store {
namespace {

constexpr std::string_view task_columns =
    "run_id, task_id, position, title, body, status, notes, source, created_at, updated_at";

core::Task read_task(const Row& row) {
  core::Task t;
  t.run_id = row[0].text();
  t.id = row[1].text();
  t.position = static_cast<int>(row[2].int64());
  t.title = row[3].text();
  t.body = row[4].text();
  t.status = core::parse_task_status(row[5].text()).value_or(core::TaskStatus::pending);
  t.notes = row[6].text();
  t.source = row[7].text();
  t.created_at = row[8].text();
  t.updated_at = row[9].text();
  return t;
}

/// Every column in task_columns order, as $1..$10.
std::vector<Param> task_params(const core::Task& t) {
  return {t.run_id, t.id,    t.position,   t.title,     t.body, std::string(core::to_string(t.status)),
          t.notes,  t.source, t.created_at, t.updated_at};
}

std::vector<core::Task> read_tasks(const Result& result) {
  std::vector<core::Task> tasks;
  tasks.reserve(static_cast<std::size_t>(result.rows()));
  for (int i = 0; i < result.rows(); ++i) tasks.push_back(read_task(result.row(i)));
  return tasks;
}

}  // namespace

void TaskRepository::insert(const core::Task& task) {
  c_.query("INSERT INTO tasks (" + std::string(task_columns) + ") VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)",
           task_params(task));
}

bool TaskRepository::update(const core::Task& task) {
  return c_.query("UPDATE tasks SET position=$3, title=$4, body=$5, status=$6, notes=$7, source=$8, "
                  "created_at=$9, updated_at=$10 WHERE run_id=$1 AND task_id=$2",
                  task_params(task))
             .affected_rows() > 0;
}

bool TaskRepository::remove(std::string_view run_id, std::string_view task_id) {
  return c_.query("DELETE FROM tasks WHERE run_id = $1 AND task_id = $2", {run_id, task_id}).affected_rows() > 0;
}

void TaskRepository::remove_all(std::string_view run_id) {
  c_.query("DELETE FROM tasks WHERE run_id = $1", {run_id});
}

std::optional<core::Task> TaskRepository::get(std::string_view run_id, std::string_view task_id) {
  auto result = c_.query("SELECT " + std::string(task_columns) + " FROM tasks WHERE run_id = $1 AND task_id = $2",
                         {run_id, task_id});
  if (result.rows() == 0) return std::nullopt;
  return read_task(result.row(0));
}

std::vector<core::Task> TaskRepository::list(std::string_view run_id) {
  return read_tasks(
      c_.query("SELECT " + std::string(task_columns) + " FROM tasks WHERE run_id = $1 ORDER BY position", {run_id}));
}

int TaskRepository::next_position(std::string_view run_id) {
  return static_cast<int>(
      c_.query("SELECT COALESCE(MAX(position), -1) + 1 FROM tasks WHERE run_id = $1", {run_id}).row(0)[0].int64());
}

std::map<std::string, core::TaskTally> TaskRepository::tallies(const std::vector<std::string>& run_ids) {
  std::map<std::string, core::TaskTally> out;
  if (run_ids.empty()) return out;
  auto result = c_.query("SELECT run_id, task_id, title, status FROM tasks WHERE run_id = ANY($1::text[]) "
                         "ORDER BY run_id, position",
                         {text_array(run_ids)});
  for (int i = 0; i < result.rows(); ++i) {
    auto row = result.row(i);
    out[row[0].text()].add(row[1].text(), row[2].text(),
                           core::parse_task_status(row[3].text()).value_or(core::TaskStatus::pending));
  }
  return out;
}

}  // namespace agentry::pg_store

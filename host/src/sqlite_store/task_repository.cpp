#include "sqlite_store/repositories.hpp"
#include "sqlite_store/sql_lists.hpp"

#include <algorithm>

namespace agentry::sqlite_store {
namespace {

constexpr std::string_view task_columns =
    "run_id, task_id, position, title, body, status, notes, source, created_at, updated_at";

core::Task read_task(const Statement& s) {
  core::Task t;
  t.run_id = s.column_text(0);
  t.id = s.column_text(1);
  t.position = s.column_int(2);
  t.title = s.column_text(3);
  t.body = s.column_text(4);
  t.status = core::parse_task_status(s.column_text(5)).value_or(core::TaskStatus::pending);
  t.notes = s.column_text(6);
  t.source = s.column_text(7);
  t.created_at = s.column_text(8);
  t.updated_at = s.column_text(9);
  return t;
}

/// Text is bound in place: `t` outlives the statement's step.
void bind_task(Statement& s, const core::Task& t) {
  s.bind_view(1, t.run_id).bind_view(2, t.id).bind(3, t.position).bind_view(4, t.title).bind_view(5, t.body);
  s.bind_view(6, core::to_string(t.status)).bind_view(7, t.notes).bind_view(8, t.source).bind_view(9, t.created_at);
  s.bind_view(10, t.updated_at);
}


}  // namespace

void TaskRepository::insert(const core::Task& task) {
  static const std::string sql = "INSERT INTO tasks (" + std::string(task_columns) + ") VALUES (?,?,?,?,?,?,?,?,?,?)";
  auto s = c_.prepare(sql);
  bind_task(s, task);
  s.run();
}

bool TaskRepository::update(const core::Task& task) {
  auto s = c_.prepare(
      "UPDATE tasks SET position=?3, title=?4, body=?5, status=?6, notes=?7, source=?8, created_at=?9, "
      "updated_at=?10 WHERE run_id=?1 AND task_id=?2");
  bind_task(s, task);
  s.run();
  return c_.changes() > 0;
}

bool TaskRepository::remove(std::string_view run_id, std::string_view task_id) {
  auto s = c_.prepare("DELETE FROM tasks WHERE run_id = ? AND task_id = ?");
  s.bind(1, run_id).bind(2, task_id);
  s.run();
  return c_.changes() > 0;
}

void TaskRepository::remove_all(std::string_view run_id) {
  auto s = c_.prepare("DELETE FROM tasks WHERE run_id = ?");
  s.bind(1, run_id);
  s.run();
}

std::optional<core::Task> TaskRepository::get(std::string_view run_id, std::string_view task_id) {
  auto s = c_.prepare("SELECT " + std::string(task_columns) + " FROM tasks WHERE run_id = ? AND task_id = ?");
  s.bind(1, run_id).bind(2, task_id);
  if (!s.step()) return std::nullopt;
  return read_task(s);
}

// Rows come in key order and are put in position order here: an ORDER BY position would
// have SQLite sort them in a temporary b-tree of its own, which costs more for a few rows.
std::vector<core::Task> TaskRepository::list(std::string_view run_id) {
  static const std::string sql = "SELECT " + std::string(task_columns) + " FROM tasks WHERE run_id = ?";
  auto s = c_.prepare(sql);
  s.bind(1, run_id);
  std::vector<core::Task> tasks;
  while (s.step()) tasks.push_back(read_task(s));
  std::stable_sort(tasks.begin(), tasks.end(), [](const auto& a, const auto& b) { return a.position < b.position; });
  return tasks;
}

int TaskRepository::next_position(std::string_view run_id) {
  auto s = c_.prepare("SELECT COALESCE(MAX(position), -1) + 1 FROM tasks WHERE run_id = ?");
  s.bind(1, run_id);
  s.step();
  return s.column_int(0);
}

std::map<std::string, core::TaskTally> TaskRepository::tallies(const std::vector<std::string>& run_ids) {
  std::map<std::string, core::TaskTally> out;
  if (run_ids.empty()) return out;
  // Counted as the rows come: a run's active task is its in-progress one first by position,
  // found here, so SQLite sorts nothing (an ORDER BY position was a temporary b-tree).
  std::map<std::string, int> active_position;
  auto s = c_.prepare("SELECT run_id, status, position, task_id, title FROM tasks WHERE run_id IN "
                     "(SELECT value FROM json_each(?))");
  s.bind(1, json_array_text(run_ids));
  auto at = out.end();
  while (s.step()) {
    const std::string_view run_id = s.column_view(0);
    if (at == out.end() || at->first != run_id) at = out.try_emplace(std::string(run_id)).first;
    auto& tally = at->second;
    const auto status = core::parse_task_status(s.column_view(1)).value_or(core::TaskStatus::pending);
    if (status == core::TaskStatus::in_progress) {
      const int position = s.column_int(2);
      auto [best, first] = active_position.try_emplace(at->first, position);
      if (first || position < best->second) {
        best->second = position;
        tally.active.reset();  // add() names the active task when there is none
        tally.add(s.column_text(3), s.column_text(4), status);
        continue;
      }
    }
    tally.add({}, {}, status);
  }
  return out;
}

}  // namespace agentry::sqlite_store

#include "sqlite_store/repositories.hpp"
#include "store/run_codec.hpp"

namespace agentry::sqlite_store {
namespace {

/// The first of `count` cursors taken from one of a run's counters (`read` selects it,
/// `bump` sets it). A read and an update, not one UPDATE ... RETURNING: SQLite gathers
/// RETURNING rows in a temporary table, dozens of allocations for one integer, and the
/// writer takes cursors for every audit record and every run's batch of timeline events.
std::int64_t take_cursors(Connection& c, std::string_view read, std::string_view bump, std::string_view id,
                          std::int64_t count, std::string_view what) {
  auto next = c.prepare(read);
  next.bind_view(1, id);
  if (!next.step()) throw StoreError("no run " + std::string(id) + " to append " + std::string(what) + " to", 0);
  const std::int64_t first = next.column_int64(0);
  next.reset();
  c.prepare(bump).bind(1, first + count).bind_view(2, id).run();
  return first;
}

using store::run_columns;
const std::string select_columns = store::run_read_columns + std::string(store::run_derived_columns);
const std::string summary_select_columns = store::run_summary_columns + std::string(store::run_derived_columns);

/// `summary_only`: the frozen inputs a summary shows and no more (listings).
core::Run read_run(const Statement& s, bool summary_only = false) {
  core::Run r;
  int i = 0;
  r.id = s.column_text(i++);
  r.status = core::parse_run_status(s.column_text(i++)).value_or(core::RunStatus::error);
  r.status_reason = s.column_text(i++);
  r.created_at = s.column_text(i++);
  r.updated_at = s.column_text(i++);
  r.started_at = s.column_optional_text(i++);
  r.finished_at = s.column_optional_text(i++);
  r.cwd = s.column_text(i++);
  r.repo_root = s.column_text(i++);
  r.run_group_id = s.column_text(i++);
  r.parent_run_id = s.column_optional_text(i++);
  r.name = s.column_optional_text(i++);
  r.note = s.column_optional_text(i++);
  r.pinned = s.column_bool(i++);
  r.archived = s.column_bool(i++);
  r.archived_at = s.column_optional_text(i++);
  const int indexed = i;  // agent_name, assignment_name, backend: indexed copies of frozen fields
  i += 3;
  r.backend_session_id = s.column_optional_text(i++);
  r.controller_id = s.column_text(i++);
  r.session_count = s.column_int(i++);
  r.attempt_count = s.column_int(i++);
  r.revision = s.column_int64(i++);
  const auto decode = summary_only ? store::decode_frozen_summary : store::decode_frozen;
  decode(r, s.column_text(i++),
         {s.column_text(indexed), s.column_optional_text(indexed + 1).value_or(""), s.column_text(indexed + 2)});
  r.queued_message_count = s.column_int(i++);
  r.attachment_count = s.column_int(i++);
  r.diffstat = store::decode_diffstat(s.column_optional_text(i++));
  r.usage = core::decode_usage(s.column_optional_text(i++));
  r.pending_approval_count = s.column_int(i++);
  return r;
}

// Binds every column in run_columns order, starting at parameter 1; the frozen inputs
// as `frozen` (encode_frozen). Text is bound in place: `r` and `frozen` must outlive the
// statement's step.
void bind_run(Statement& s, const core::Run& r, const store::FrozenText& frozen) {
  int i = 1;
  s.bind_view(i++, r.id);
  s.bind_view(i++, core::to_string(r.status));
  s.bind_view(i++, r.status_reason);
  s.bind_view(i++, r.created_at);
  s.bind_view(i++, r.updated_at);
  s.bind_view(i++, r.started_at);
  s.bind_view(i++, r.finished_at);
  s.bind_view(i++, r.cwd);
  s.bind_view(i++, r.repo_root);
  s.bind_view(i++, r.run_group_id);
  s.bind_view(i++, r.parent_run_id);
  s.bind_view(i++, r.name);
  s.bind_view(i++, r.note);
  s.bind(i++, r.pinned);
  s.bind(i++, r.archived);
  s.bind_view(i++, r.archived_at);
  s.bind_view(i++, r.frozen.agent_name);
  s.bind_view(i++, r.frozen.assignment_name);
  s.bind_view(i++, r.frozen.backend);
  s.bind_view(i++, r.backend_session_id);
  s.bind_view(i++, r.controller_id);
  s.bind(i++, r.session_count);
  s.bind(i++, r.attempt_count);
  s.bind(i++, r.revision);
  s.bind_view(i++, frozen.whole);
  s.bind_view(i++, frozen.summary);
}

}  // namespace

void RunRepository::insert(const core::Run& run, const store::FrozenText& frozen) {
  static const std::string sql =
      "INSERT INTO runs (" + run_columns + ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
  auto s = c_.prepare(sql);
  bind_run(s, run, frozen);
  s.run();
}

bool RunRepository::update(const core::Run& run) {
  const auto frozen = store::encode_frozen(run);
  // `id` is only matched, never set: naming a key that other tables reference in SET makes
  // SQLite check every referencing table for rows of the old key, each time (a long
  // timeline's rows all read on every update of its run).
  auto s = c_.prepare(
      "UPDATE runs SET status=?2, status_reason=?3, created_at=?4, updated_at=?5, started_at=?6, "
      "finished_at=?7, cwd=?8, repo_root=?9, run_group_id=?10, parent_run_id=?11, name=?12, note=?13, pinned=?14, "
      "archived=?15, archived_at=?16, agent_name=?17, assignment_name=?18, backend=?19, backend_session_id=?20, "
      "controller_id=?21, session_count=?22, attempt_count=?23, revision=?24, frozen_json=?25, "
      "frozen_summary_json=?26 WHERE id=?1");
  bind_run(s, run, frozen);
  s.run();
  return c_.changes() > 0;
}

std::optional<core::Run> RunRepository::get(std::string_view id) {
  auto s = c_.prepare("SELECT " + select_columns + " FROM runs WHERE id = ?");
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  return read_run(s);
}

std::vector<std::pair<std::string, std::int64_t>> RunRepository::revisions_updated_since(std::string_view since) {
  auto s = c_.prepare("SELECT id, revision FROM runs WHERE updated_at >= ?1");
  s.bind(1, since);
  std::vector<std::pair<std::string, std::int64_t>> out;
  while (s.step()) out.emplace_back(s.column_text(0), s.column_int64(1));
  return out;
}

std::int64_t RunRepository::others_commit_mark() {
  auto s = c_.prepare("PRAGMA data_version");
  return s.step() ? s.column_int64(0) : 0;
}

bool RunRepository::exists(std::string_view id) {
  auto s = c_.prepare("SELECT 1 FROM runs WHERE id = ?");
  s.bind(1, id);
  return s.step();
}

bool RunRepository::remove(std::string_view id) {
  auto s = c_.prepare("DELETE FROM runs WHERE id = ?");
  s.bind(1, id);
  s.run();
  return c_.changes() > 0;
}

core::RunPage RunRepository::list(const core::RunQuery& q) {
  std::string sql = "SELECT " + summary_select_columns + " FROM runs";
  std::vector<std::string> where;
  switch (q.scope) {
    case core::RunQuery::Scope::global: break;
    case core::RunQuery::Scope::cwd: where.emplace_back("cwd = ?1"); break;
    case core::RunQuery::Scope::repo: where.emplace_back("repo_root = ?1"); break;
    case core::RunQuery::Scope::group: where.emplace_back("run_group_id = ?1"); break;
  }
  if (!q.include_archived) where.emplace_back("archived = 0");
  if (q.after) where.emplace_back("(created_at < ?2 OR (created_at = ?2 AND id < ?3))");
  for (std::size_t i = 0; i < where.size(); ++i) sql += (i == 0 ? " WHERE " : " AND ") + where[i];
  sql += " ORDER BY created_at DESC, id DESC LIMIT ?4";

  auto s = c_.prepare(sql);
  if (q.scope != core::RunQuery::Scope::global) s.bind(1, q.value);
  if (q.after) {
    auto key = store::decode_run_page_cursor(*q.after);
    s.bind(2, key.created_at).bind(3, key.id);
  }
  const std::int64_t fetch = store::run_page_fetch_limit(q);
  s.bind(4, fetch);
  std::vector<core::Run> rows;
  rows.reserve(static_cast<std::size_t>(fetch));  // a Run is large: growing would move each several times
  while (s.step()) rows.push_back(read_run(s, /*summary_only=*/true));
  return store::run_page(std::move(rows), q);
}

std::vector<std::string> RunRepository::ids_with_status(core::RunStatus status) {
  auto s = c_.prepare("SELECT id FROM runs WHERE status = ?");
  s.bind(1, core::to_string(status));
  std::vector<std::string> ids;
  while (s.step()) ids.push_back(s.column_text(0));
  return ids;
}

std::map<std::string, std::int64_t> RunRepository::count_by_status() {
  auto s = c_.prepare("SELECT status, count(*) FROM runs GROUP BY status");
  std::map<std::string, std::int64_t> counts;
  while (s.step()) counts[s.column_text(0)] = s.column_int64(1);
  return counts;
}

bool RunRepository::set_diffstat(std::string_view id, const std::optional<core::DiffStat>& stat) {
  auto s = c_.prepare("UPDATE runs SET diffstat_json = ?2, revision = revision + 1 WHERE id = ?1");
  s.bind(1, id).bind(2, store::encode_diffstat(stat));
  s.run();
  return c_.changes() > 0;
}

void RunRepository::set_initial_snapshot(std::string_view id, const std::string& snapshot) {
  auto s = c_.prepare("UPDATE runs SET initial_snapshot_json = ? WHERE id = ?");
  s.bind(1, snapshot).bind(2, id);
  s.run();
}

std::optional<std::string> RunRepository::initial_snapshot(std::string_view id) {
  auto s = c_.prepare("SELECT initial_snapshot_json FROM runs WHERE id = ?");
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  return s.column_optional_text(0);
}

std::int64_t RunRepository::next_audit_cursor(std::string_view id) {
  return take_cursors(c_, "SELECT next_audit_cursor FROM runs WHERE id = ?",
                      "UPDATE runs SET next_audit_cursor = ? WHERE id = ?", id, 1, "an audit event");
}

std::int64_t RunRepository::next_timeline_cursor(std::string_view id, std::int64_t count) {
  return take_cursors(c_, "SELECT next_timeline_cursor FROM runs WHERE id = ?",
                      "UPDATE runs SET next_timeline_cursor = ? WHERE id = ?", id, count, "a timeline event");
}

std::int64_t RunRepository::count_live_children(std::string_view parent_id) {
  auto s = c_.prepare(
      "SELECT COUNT(*) FROM runs WHERE parent_run_id = ? AND archived = 0 "
      "AND status IN ('initialized', 'ready', 'running')");
  s.bind(1, parent_id);
  s.step();
  return s.column_int64(0);
}

std::vector<std::pair<std::string, std::string>> RunRepository::child_statuses(std::string_view parent_run_id) {
  auto s = c_.prepare("SELECT id, status FROM runs WHERE parent_run_id = ? ORDER BY created_at, id");
  s.bind(1, parent_run_id);
  std::vector<std::pair<std::string, std::string>> out;
  while (s.step()) out.emplace_back(s.column_text(0), s.column_text(1));
  return out;
}

}  // namespace agentry::sqlite_store

#include "pg_store/repositories.hpp"
#include "store/run_codec.hpp"

namespace agentry::pg_store {
namespace {

using store::run_columns;
const std::string select_columns = store::run_read_columns + std::string(store::run_derived_columns);
const std::string summary_select_columns = store::run_summary_columns + std::string(store::run_derived_columns);

/// `summary_only`: the frozen inputs a summary shows and no more (listings).
core::Run read_run(const Row& row, bool summary_only = false) {
  core::Run r;
  int i = 0;
  r.id = row[i++].text();
  r.status = core::parse_run_status(row[i++].text()).value_or(core::RunStatus::error);
  r.status_reason = row[i++].text();
  r.created_at = row[i++].text();
  r.updated_at = row[i++].text();
  r.started_at = row[i++].optional_text();
  r.finished_at = row[i++].optional_text();
  r.cwd = row[i++].text();
  r.repo_root = row[i++].text();
  r.run_group_id = row[i++].text();
  r.parent_run_id = row[i++].optional_text();
  r.name = row[i++].optional_text();
  r.note = row[i++].optional_text();
  r.pinned = row[i++].boolean();
  r.archived = row[i++].boolean();
  r.archived_at = row[i++].optional_text();
  const int indexed = i;  // agent_name, assignment_name, backend: indexed copies of frozen fields
  i += 3;
  r.backend_session_id = row[i++].optional_text();
  r.controller_id = row[i++].text();
  r.session_count = static_cast<int>(row[i++].int64());
  r.attempt_count = static_cast<int>(row[i++].int64());
  r.revision = row[i++].int64();
  const auto decode = summary_only ? store::decode_frozen_summary : store::decode_frozen;
  decode(r, row[i++].text(), {row[indexed].text(), row[indexed + 1].text(), row[indexed + 2].text()});
  r.queued_message_count = static_cast<int>(row[i++].int64());
  r.attachment_count = static_cast<int>(row[i++].int64());
  r.diffstat = store::decode_diffstat(row[i++].optional_text());
  r.usage = core::decode_usage(row[i++].optional_text());
  r.pending_approval_count = static_cast<int>(row[i++].int64());
  return r;
}

std::vector<core::Run> read_summaries(const Result& result) {
  std::vector<core::Run> runs;
  runs.reserve(static_cast<std::size_t>(result.rows()));
  for (int i = 0; i < result.rows(); ++i) runs.push_back(read_run(result.row(i), /*summary_only=*/true));
  return runs;
}

/// Every column in run_columns order, as $1..$26.
std::vector<Param> run_params(const core::Run& r, store::FrozenText frozen) {
  return {r.id,           std::string(core::to_string(r.status)), r.status_reason,
          r.created_at,   r.updated_at,                           r.started_at,
          r.finished_at,  r.cwd,                                  r.repo_root,
          r.run_group_id, r.parent_run_id,                        r.name,
          r.note,         r.pinned,                               r.archived,
          r.archived_at,  r.frozen.agent_name,                    r.frozen.assignment_name,
          r.frozen.backend, r.backend_session_id,                 r.controller_id,
          r.session_count, r.attempt_count,                       r.revision,
          std::move(frozen.whole), std::move(frozen.summary)};
}

std::vector<std::string> ids_of(const Result& result) {
  std::vector<std::string> ids;
  ids.reserve(static_cast<std::size_t>(result.rows()));
  for (int i = 0; i < result.rows(); ++i) ids.push_back(result.row(i)[0].text());
  return ids;
}

}  // namespace

void RunRepository::insert(const core::Run& run, const store::FrozenText& frozen) {
  c_.query("INSERT INTO runs (" + run_columns +
               ") VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26)",
           run_params(run, frozen));
}

bool RunRepository::update(const core::Run& run) {
  return c_.query("UPDATE runs SET status=$2, status_reason=$3, created_at=$4, updated_at=$5, started_at=$6, "
                  "finished_at=$7, cwd=$8, repo_root=$9, run_group_id=$10, parent_run_id=$11, name=$12, note=$13, "
                  "pinned=$14, archived=$15, archived_at=$16, agent_name=$17, assignment_name=$18, backend=$19, "
                  "backend_session_id=$20, controller_id=$21, session_count=$22, attempt_count=$23, revision=$24, "
                  "frozen_json=$25, frozen_summary_json=$26 WHERE id=$1",
                  run_params(run, store::encode_frozen(run)))
             .affected_rows() > 0;
}

std::optional<core::Run> RunRepository::get(std::string_view id) {
  auto result = c_.query("SELECT " + select_columns + " FROM runs WHERE id = $1", {id});
  if (result.rows() == 0) return std::nullopt;
  return read_run(result.row(0));
}

std::vector<std::pair<std::string, std::int64_t>> RunRepository::revisions_updated_since(std::string_view since) {
  auto result = c_.query("SELECT id, revision FROM runs WHERE updated_at >= $1", {since});
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (int i = 0; i < result.rows(); ++i) out.emplace_back(result.row(i)[0].text(), result.row(i)[1].int64());
  return out;
}

std::int64_t RunRepository::others_commit_mark() {
  // PostgreSQL has no data_version, which in SQLite moves only when another connection
  // commits. The snapshot's xmax moves whenever a transaction that wrote ends anywhere in
  // the database, ours included, so the foreign-change poll (engine/foreign_changes.cpp)
  // also scans after each tick on which we wrote; that scan is how the commits of another
  // member sharing the database reach us. The text form of xid8 is a decimal integer.
  return c_.query("SELECT pg_snapshot_xmax(pg_current_snapshot())").row(0)[0].int64();
}

bool RunRepository::exists(std::string_view id) {
  return c_.query("SELECT 1 FROM runs WHERE id = $1", {id}).rows() > 0;
}

bool RunRepository::remove(std::string_view id) {
  return c_.query("DELETE FROM runs WHERE id = $1", {id}).affected_rows() > 0;
}

core::RunPage RunRepository::list(const core::RunQuery& q) {
  // Placeholders are numbered as their values are added: PostgreSQL cannot type one the
  // statement does not use.
  std::vector<Param> params;
  auto next = [&](Param value) {
    params.push_back(std::move(value));
    return "$" + std::to_string(params.size());
  };
  std::vector<std::string> where;
  switch (q.scope) {
    case core::RunQuery::Scope::global: break;
    case core::RunQuery::Scope::cwd: where.push_back("cwd = " + next(q.value)); break;
    case core::RunQuery::Scope::repo: where.push_back("repo_root = " + next(q.value)); break;
    case core::RunQuery::Scope::group: where.push_back("run_group_id = " + next(q.value)); break;
  }
  if (!q.include_archived) where.emplace_back("NOT archived");
  if (q.after) {
    // A row comparison, which PostgreSQL turns into one range scan of the listing's index.
    auto key = store::decode_run_page_cursor(*q.after);
    where.push_back("(created_at, id) < (" + next(key.created_at) + ", " + next(key.id) + ")");
  }
  std::string sql = "SELECT " + summary_select_columns + " FROM runs";
  for (std::size_t i = 0; i < where.size(); ++i) sql += (i == 0 ? " WHERE " : " AND ") + where[i];
  sql += " ORDER BY created_at DESC, id DESC LIMIT " + next(store::run_page_fetch_limit(q));
  return store::run_page(read_summaries(c_.query(sql, params)), q);
}

std::vector<std::string> RunRepository::ids_with_status(core::RunStatus status) {
  return ids_of(c_.query("SELECT id FROM runs WHERE status = $1", {std::string(core::to_string(status))}));
}

std::map<std::string, std::int64_t> RunRepository::count_by_status() {
  auto result = c_.query("SELECT status, count(*) FROM runs GROUP BY status");
  std::map<std::string, std::int64_t> counts;
  for (int i = 0; i < result.rows(); ++i) counts[result.row(i)[0].text()] = result.row(i)[1].int64();
  return counts;
}

bool RunRepository::set_diffstat(std::string_view id, const std::optional<core::DiffStat>& stat) {
  return c_.query("UPDATE runs SET diffstat_json = $2, revision = revision + 1 WHERE id = $1",
                  {id, store::encode_diffstat(stat)})
             .affected_rows() > 0;
}

void RunRepository::set_initial_snapshot(std::string_view id, const std::string& snapshot) {
  c_.query("UPDATE runs SET initial_snapshot_json = $1 WHERE id = $2", {snapshot, id});
}

std::optional<std::string> RunRepository::initial_snapshot(std::string_view id) {
  auto result = c_.query("SELECT initial_snapshot_json FROM runs WHERE id = $1", {id});
  if (result.rows() == 0) return std::nullopt;
  return result.row(0)[0].optional_text();
}

std::int64_t RunRepository::next_audit_cursor(std::string_view id) {
  auto result = c_.query("UPDATE runs SET next_audit_cursor = next_audit_cursor + 1 WHERE id = $1 "
                         "RETURNING next_audit_cursor - 1",
                         {id});
  if (result.rows() == 0) throw PgError("no run " + std::string(id) + " to append an audit event to", "");
  return result.row(0)[0].int64();
}

std::int64_t RunRepository::next_timeline_cursor(std::string_view id, std::int64_t count) {
  auto result = c_.query("UPDATE runs SET next_timeline_cursor = next_timeline_cursor + $2::bigint WHERE id = $1 "
                         "RETURNING next_timeline_cursor - $2::bigint",
                         {id, count});
  if (result.rows() == 0) throw PgError("no run " + std::string(id) + " to append a timeline event to", "");
  return result.row(0)[0].int64();
}

std::int64_t RunRepository::count_live_children(std::string_view parent_id) {
  return c_.query("SELECT count(*) FROM runs WHERE parent_run_id = $1 AND NOT archived "
                  "AND status IN ('initialized', 'ready', 'running')",
                  {parent_id})
      .row(0)[0]
      .int64();
}

std::vector<std::pair<std::string, std::string>> RunRepository::child_statuses(std::string_view parent_run_id) {
  auto result = c_.query("SELECT id, status FROM runs WHERE parent_run_id = $1 ORDER BY created_at, id",
                         {parent_run_id});
  std::vector<std::pair<std::string, std::string>> out;
  for (int i = 0; i < result.rows(); ++i) out.emplace_back(result.row(i)[0].text(), result.row(i)[1].text());
  return out;
}

}  // namespace agentry::pg_store

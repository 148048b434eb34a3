#include "pg_store/repositories.hpp"

#include <algorithm>

namespace agentry::pg_store {

void HookAuditRepository::append(std::string_view run_id, const std::vector<core::HookAudit>& audits, int keep) {
  if (audits.empty()) return;
  for (const auto& a : audits) {
    c_.query("INSERT INTO hook_audits (run_id, hook_id, phase, outcome, message, duration_ms, exit_code, stderr, "
             "truncated, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)",
             {run_id, a.hook_id, std::string(core::to_string(a.phase)), a.outcome, a.message, a.duration_ms,
              a.exit_code ? Param(*a.exit_code) : Param(std::nullopt), a.stderr_excerpt, a.output_truncated,
              a.created_at});
  }
  // Everything older than the run's keep-th latest row goes (hook_audits_by_run serves both).
  c_.query("DELETE FROM hook_audits WHERE run_id = $1 AND id <= (SELECT id FROM hook_audits WHERE run_id = $1 "
           "ORDER BY id DESC LIMIT 1 OFFSET $2)",
           {run_id, std::max(keep, 1)});
}

int HookAuditRepository::count(std::string_view run_id) {
  return static_cast<int>(
      c_.query("SELECT count(*) FROM hook_audits WHERE run_id = $1", {run_id}).row(0)[0].int64());
}

std::vector<core::HookAudit> HookAuditRepository::latest(std::string_view run_id, int limit) {
  // LIMIT NULL is no limit, as a negative one is in SQLite (PostgreSQL rejects those).
  auto result = c_.query("SELECT hook_id, phase, outcome, message, duration_ms, exit_code, stderr, truncated, "
                         "created_at FROM hook_audits WHERE run_id = $1 ORDER BY id DESC LIMIT $2",
                         {run_id, limit < 0 ? Param(std::nullopt) : Param(limit)});
  std::vector<core::HookAudit> out;
  out.reserve(static_cast<std::size_t>(result.rows()));
  for (int i = result.rows() - 1; i >= 0; --i) {
    auto row = result.row(i);
    core::HookAudit a;
    a.hook_id = row[0].text();
    a.phase = core::parse_hook_phase(row[1].text()).value_or(core::HookPhase::prepare);
    a.outcome = row[2].text();
    a.message = row[3].text();
    a.duration_ms = row[4].int64();
    if (!row[5].is_null()) a.exit_code = static_cast<int>(row[5].int64());
    a.stderr_excerpt = row[6].text();
    a.output_truncated = row[7].boolean();
    a.created_at = row[8].text();
    out.push_back(std::move(a));
  }
  return out;
}

void RunWorktreeRepository::set(std::string_view run_id, const std::string& json) {
  c_.query("UPDATE runs SET worktree_json = $1 WHERE id = $2", {json, run_id});
}

std::optional<std::string> RunWorktreeRepository::get(std::string_view run_id) {
  auto result = c_.query("SELECT worktree_json FROM runs WHERE id = $1", {run_id});
  if (result.rows() == 0) return std::nullopt;
  return result.row(0)[0].optional_text();
}

void RunHookDataRepository::set(std::string_view run_id, const std::string& json) {
  c_.query("UPDATE runs SET hook_data_json = $1 WHERE id = $2", {json, run_id});
}

std::optional<std::string> RunHookDataRepository::get(std::string_view run_id) {
  auto result = c_.query("SELECT hook_data_json FROM runs WHERE id = $1", {run_id});
  if (result.rows() == 0) return std::nullopt;
  return result.row(0)[0].optional_text();
}

}  // namespace agentry::pg_store

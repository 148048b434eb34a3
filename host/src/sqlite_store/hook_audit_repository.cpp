#include "sqlite_store/repositories.hpp"
#include <algorithm>

namespace agentry::sqlite_store {

void HookAuditRepository::append(std::string_view run_id, const std::vector<core::HookAudit>& audits,
                                 int keep) {
  if (audits.empty()) return;
  for (const auto& a : audits) {
    auto s = c_.prepare(
        "INSERT INTO hook_audits (run_id, hook_id, phase, outcome, message, duration_ms, exit_code, stderr, "
        "truncated, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    s.bind(1, run_id).bind(2, a.hook_id).bind(3, core::to_string(a.phase)).bind(4, a.outcome).bind(5, a.message);
    s.bind(6, a.duration_ms);
    if (a.exit_code) s.bind(7, *a.exit_code);
    else s.bind(7, std::optional<std::string>{});
    s.bind(8, a.stderr_excerpt).bind(9, a.output_truncated).bind(10, a.created_at);
    s.run();
  }
  // Everything older than the run's keep-th latest row goes (hook_audits_by_run serves both).
  auto prune = c_.prepare(
      "DELETE FROM hook_audits WHERE run_id = ?1 AND id <= (SELECT id FROM hook_audits WHERE run_id = ?1 "
      "ORDER BY id DESC LIMIT 1 OFFSET ?2)");
  prune.bind(1, run_id).bind(2, std::max(keep, 1));
  prune.run();
}

int HookAuditRepository::count(std::string_view run_id) {
  auto s = c_.prepare("SELECT count(*) FROM hook_audits WHERE run_id = ?");
  s.bind(1, run_id);
  return s.step() ? s.column_int(0) : 0;
}

std::vector<core::HookAudit> HookAuditRepository::latest(std::string_view run_id, int limit) {
  auto s = c_.prepare(
      "SELECT hook_id, phase, outcome, message, duration_ms, exit_code, stderr, truncated, created_at "
      "FROM hook_audits WHERE run_id = ? ORDER BY id DESC LIMIT ?");
  s.bind(1, run_id).bind(2, limit);
  std::vector<core::HookAudit> out;
  while (s.step()) {
    core::HookAudit a;
    a.hook_id = s.column_text(0);
    a.phase = core::parse_hook_phase(s.column_text(1)).value_or(core::HookPhase::prepare);
    a.outcome = s.column_text(2);
    a.message = s.column_text(3);
    a.duration_ms = s.column_int64(4);
    if (!s.column_is_null(5)) a.exit_code = s.column_int(5);
    a.stderr_excerpt = s.column_text(6);
    a.output_truncated = s.column_bool(7);
    a.created_at = s.column_text(8);
    out.push_back(std::move(a));
  }
  std::reverse(out.begin(), out.end());
  return out;
}

void RunWorktreeRepository::set(std::string_view run_id, const std::string& json) {
  auto s = c_.prepare("UPDATE runs SET worktree_json = ? WHERE id = ?");
  s.bind(1, json).bind(2, run_id);
  s.run();
}

std::optional<std::string> RunWorktreeRepository::get(std::string_view run_id) {
  auto s = c_.prepare("SELECT worktree_json FROM runs WHERE id = ?");
  s.bind(1, run_id);
  if (!s.step()) return std::nullopt;
  return s.column_optional_text(0);
}

void RunHookDataRepository::set(std::string_view run_id, const std::string& json) {
  auto s = c_.prepare("UPDATE runs SET hook_data_json = ? WHERE id = ?");
  s.bind(1, json).bind(2, run_id);
  s.run();
}

std::optional<std::string> RunHookDataRepository::get(std::string_view run_id) {
  auto s = c_.prepare("SELECT hook_data_json FROM runs WHERE id = ?");
  s.bind(1, run_id);
  if (!s.step()) return std::nullopt;
  return s.column_optional_text(0);
}

}  // namespace agentry::sqlite_store

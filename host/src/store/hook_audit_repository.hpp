#pragma once
// Rows of hook executions (core/hook.hpp HookAudit), deleted with their run. A run keeps
// its latest `keep_limit`: a hook on every attempt of a long-lived run must not grow the
// database without bound, and the views show only the latest `view_limit` anyway.

#include "core/hook.hpp"
#include "store/sqlite.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentry::store {

class HookAuditRepository {
 public:
  /// How many of a run's latest executions views show.
  static constexpr int view_limit = 100;
  /// How many of a run's executions are kept (docs/definitions.md "What is recorded").
  static constexpr int keep_limit = 500;

  /// Adds `audits` in order, then deletes the run's oldest beyond `keep`, in the
  /// caller's transaction: the table never holds more than `keep` rows of a run.
  static void append(Connection& c, std::string_view run_id, const std::vector<core::HookAudit>& audits,
                     int keep = keep_limit);
  static int count(Connection& c, std::string_view run_id);
  /// The latest `limit`, oldest first.
  static std::vector<core::HookAudit> latest(Connection& c, std::string_view run_id, int limit = view_limit);
};

/// runs.worktree_json: the run's own git worktree, as the engine wrote it (JSON text).
class RunWorktreeRepository {
 public:
  static void set(Connection& c, std::string_view run_id, const std::string& json);
  static std::optional<std::string> get(Connection& c, std::string_view run_id);
};

/// (id, status) of every child run of `parent_run_id` (require-children-success).
std::vector<std::pair<std::string, std::string>> child_run_statuses(Connection& c, std::string_view parent_run_id);

}  // namespace agentry::store

#pragma once
// Rows of hook executions (core/hook.hpp HookAudit), deleted with their run. A run keeps
// its latest `keep_limit`: a hook on every attempt of a long-lived run must not grow the
// database without bound, and the views show only the latest `view_limit` anyway.

#include "core/hook.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentry::store {

class HookAuditRepository {
 public:
  virtual ~HookAuditRepository() = default;

  /// How many of a run's latest executions views show.
  static constexpr int view_limit = 100;
  /// How many of a run's executions are kept (docs/definitions.md "What is recorded").
  static constexpr int keep_limit = 500;

  /// Adds `audits` in order, then deletes the run's oldest beyond `keep`, in the
  /// caller's transaction: the table never holds more than `keep` rows of a run.
  virtual void append(std::string_view run_id, const std::vector<core::HookAudit>& audits,
                     int keep = keep_limit) = 0;
  virtual int count(std::string_view run_id) = 0;
  /// The latest `limit`, oldest first.
  virtual std::vector<core::HookAudit> latest(std::string_view run_id, int limit = view_limit) = 0;
};

/// runs.worktree_json: the run's own git worktree, as the engine wrote it (JSON text).
class RunWorktreeRepository {
 public:
  virtual ~RunWorktreeRepository() = default;

  virtual void set(std::string_view run_id, const std::string& json) = 0;
  virtual std::optional<std::string> get(std::string_view run_id) = 0;
};

/// runs.hook_data_json: the state a run's module hooks keep (their `mutate.state`, merged
/// shallowly), a JSON object as text; absent until a hook sets some.
class RunHookDataRepository {
 public:
  virtual ~RunHookDataRepository() = default;

  virtual void set(std::string_view run_id, const std::string& json) = 0;
  virtual std::optional<std::string> get(std::string_view run_id) = 0;
};

}  // namespace agentry::store

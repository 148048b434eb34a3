#pragma once
// Persistence of runs (one row each) and paged listing. Listing is keyset-paged
// on (created_at DESC, id DESC) over an index per filter, so a page costs the same
// with 100 runs or 100,000.

#include "core/run.hpp"
#include "store/sqlite.hpp"

#include <optional>
#include <string>
#include <vector>

namespace agentry::store {

struct RunQuery {
  enum class Scope { global, cwd, repo, group };
  Scope scope = Scope::global;
  std::string value;  // the cwd, repo root or group id
  bool include_archived = false;
  std::size_t limit = 100;
  std::optional<std::string> after;  // opaque cursor from a previous page
};

struct RunPage {
  std::vector<core::Run> runs;
  std::optional<std::string> next_cursor;
};

/// Cursor text is "<created_at>|<id>"; returns false when it cannot be parsed.
bool is_valid_page_cursor(std::string_view cursor);

class RunRepository {
 public:
  static void insert(Connection& c, const core::Run& run);
  /// Writes every mutable column; returns false when the run does not exist.
  static bool update(Connection& c, const core::Run& run);
  static std::optional<core::Run> get(Connection& c, std::string_view id);
  static bool exists(Connection& c, std::string_view id);
  /// Runs whose row was changed at or after `since` (ISO 8601): a scan, for the rare
  /// look at what another process changed (engine/foreign_changes.cpp).
  static std::vector<std::string> ids_updated_since(Connection& c, std::string_view since);
  /// Changes whenever a connection other than `c` commits (SQLite's data_version).
  static std::int64_t others_commit_mark(Connection& c);
  /// Children of `parent_id` that have not ended: initialized, ready or running, not archived.
  static std::int64_t count_live_children(Connection& c, std::string_view parent_id);
  static bool remove(Connection& c, std::string_view id);
  static RunPage list(Connection& c, const RunQuery& query);
  static std::vector<std::string> ids_with_status(Connection& c, core::RunStatus status);

  /// The run's diffstat since its workspace baseline (never written by update()); bumps
  /// the revision. False when the run does not exist.
  static bool set_diffstat(Connection& c, std::string_view id, const std::optional<core::DiffStat>& stat);

  /// The snapshot reset returns to (frozen inputs + tasks), captured at first start.
  static void set_initial_snapshot(Connection& c, std::string_view id, const std::string& json);
  static std::optional<std::string> initial_snapshot(Connection& c, std::string_view id);

  /// Reserves the next per-run cursor for an audit or timeline event.
  static std::int64_t next_audit_cursor(Connection& c, std::string_view id);
  static std::int64_t next_timeline_cursor(Connection& c, std::string_view id, std::int64_t count = 1);
};

}  // namespace agentry::store

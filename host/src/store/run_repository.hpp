#pragma once
// Persistence of runs (one row each) and paged listing. Listing is keyset-paged
// on (created_at DESC, id DESC) over an index per filter, so a page costs the same
// with 100 runs or 100,000.

#include "core/pages.hpp"
#include "core/run.hpp"
#include "store/run_codec.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace agentry::store {

class RunRepository {
 public:
  virtual ~RunRepository() = default;

  /// A new run, its frozen inputs given as `frozen` (encode_frozen of it,
  /// store/run_codec.hpp). Encoding is the largest part of an insert, and a caller that
  /// can encode before its write keeps that work off the store's one writer.
  virtual void insert(const core::Run& run, const FrozenText& frozen) = 0;
  void insert(const core::Run& run) { insert(run, encode_frozen(run)); }
  /// Writes every mutable column; returns false when the run does not exist.
  virtual bool update(const core::Run& run) = 0;
  virtual std::optional<core::Run> get(std::string_view id) = 0;
  virtual bool exists(std::string_view id) = 0;
  /// Runs whose row was changed at or after `since` (ISO 8601), each with its revision:
  /// a scan, for the look at what another process changed (engine/foreign_changes.cpp).
  virtual std::vector<std::pair<std::string, std::int64_t>> revisions_updated_since(std::string_view since) = 0;
  /// A value that changes whenever another process commits to the store: a cheap
  /// check before revisions_updated_since scans.
  virtual std::int64_t others_commit_mark() = 0;
  /// Children of `parent_id` that have not ended: initialized, ready or running, not archived.
  virtual std::int64_t count_live_children(std::string_view parent_id) = 0;
  virtual bool remove(std::string_view id) = 0;
  /// A page of runs for showing: each is frozen_summary_only (its frozen inputs hold what
  /// a summary shows, store/frozen_summary.hpp); get() a run to act on it.
  virtual core::RunPage list(const core::RunQuery& query) = 0;
  virtual std::vector<std::string> ids_with_status(core::RunStatus status) = 0;
  /// How many runs have each status (statuses with none are absent).
  virtual std::map<std::string, std::int64_t> count_by_status() = 0;
  /// (id, status) of every child of the run, oldest first.
  virtual std::vector<std::pair<std::string, std::string>> child_statuses(std::string_view parent_run_id) = 0;

  /// The run's diffstat since its workspace baseline (never written by update()); bumps
  /// the revision. False when the run does not exist.
  virtual bool set_diffstat(std::string_view id, const std::optional<core::DiffStat>& stat) = 0;

  /// The snapshot reset returns to (frozen inputs + tasks), captured at first start.
  virtual void set_initial_snapshot(std::string_view id, const std::string& json) = 0;
  virtual std::optional<std::string> initial_snapshot(std::string_view id) = 0;

  /// Reserves the next per-run cursor for an audit or timeline event.
  virtual std::int64_t next_audit_cursor(std::string_view id) = 0;
  virtual std::int64_t next_timeline_cursor(std::string_view id, std::int64_t count = 1) = 0;
};

}  // namespace agentry::store

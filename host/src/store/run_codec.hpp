#pragma once
// How a run's stored text becomes values and back, whatever the engine: the frozen
// inputs (frozen_json), the diffstat (diffstat_json) and the keyset cursor of
// RunRepository::list. Each engine's SQL reads and writes the columns; what the text
// in them means, and what an unreadable one shows, is decided once, here.

#include "core/pages.hpp"
#include "core/run.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::store {

/// The columns of a runs row in the order both engines write them: these, then
/// frozen_json and frozen_summary_json.
inline constexpr std::string_view run_columns_before_frozen =
    "id, status, status_reason, created_at, updated_at, started_at, finished_at, cwd, repo_root, run_group_id, "
    "parent_run_id, name, note, pinned, archived, archived_at, agent_name, assignment_name, backend, "
    "backend_session_id, controller_id, session_count, attempt_count, revision";
inline const std::string run_columns = std::string(run_columns_before_frozen) + ", frozen_json, frozen_summary_json";
/// The columns a whole read of a run selects: run_columns with the frozen inputs once,
/// whole (then run_derived_columns).
inline const std::string run_read_columns = std::string(run_columns_before_frozen) + ", frozen_json";
/// As run_read_columns, for a listing: the frozen inputs' summary in place of the whole
/// (the whole, for a row written before rows had one).
inline const std::string run_summary_columns =
    std::string(run_columns_before_frozen) + ", COALESCE(frozen_summary_json, frozen_json)";
/// What reads select: the columns plus derived values that are never written with the row.
/// Counting the queue and the attachments here (index lookups) keeps every RunSummary
/// right, whoever renders it.
inline constexpr std::string_view run_derived_columns =
    ", (SELECT count(*) FROM queued_messages q WHERE q.run_id = runs.id)"
    ", (SELECT count(*) FROM attachments a WHERE a.run_id = runs.id), diffstat_json, usage_json"
    ", (SELECT count(*) FROM run_approvals p WHERE p.run_id = runs.id)";

/// The frozen fields a runs row also keeps in columns of its own (indexed for lookups):
/// what a run whose frozen_json cannot be read still shows.
struct FrozenColumns {
  std::string agent_name;
  std::string assignment_name;
  std::string backend;
};

/// A run's frozen inputs as its row keeps them.
struct FrozenText {
  std::string whole;                   // frozen_json
  std::optional<std::string> summary;  // frozen_summary_json (store/frozen_summary.hpp)
};

/// The frozen inputs of `run` to write: its damaged text as it was (and no summary), if it
/// is damaged. Throws StoreError when the text could not be read back (Boost.JSON writes
/// string bytes as they are and an infinite double as `Infinity`), or when only the run's
/// summary was read (frozen_summary_only), so such a write fails and rolls back.
FrozenText encode_frozen(const core::Run& run);

/// Sets run.frozen from frozen_json. One unreadable row must not break every listing:
/// it marks the run damaged, keeps the text, and fills what `columns` know.
void decode_frozen(core::Run& run, const std::string& frozen_json, FrozenColumns columns);

/// As decode_frozen, reading only what a run summary shows (store/frozen_summary.hpp)
/// from frozen_json or frozen_summary_json: the run is marked frozen_summary_only. Text
/// that is not JSON is damaged as there; text that is JSON but not frozen inputs' shape
/// shows damaged only when the run is read whole.
void decode_frozen_summary(core::Run& run, const std::string& frozen_json, FrozenColumns columns);

/// diffstat_json for `stat`; nullopt (NULL) for none.
std::optional<std::string> encode_diffstat(const std::optional<core::DiffStat>& stat);
/// The diffstat of diffstat_json; an absent or unreadable one is none.
std::optional<core::DiffStat> decode_diffstat(const std::optional<std::string>& diffstat_json);

/// Where a page of RunRepository::list continues: strictly after this key in
/// (created_at DESC, id DESC) order.
struct RunPageKey {
  std::string created_at;
  std::string id;
};
/// The key of a cursor core::is_valid_run_page_cursor accepts.
RunPageKey decode_run_page_cursor(std::string_view cursor);

/// The rows to ask for: one more than the page holds, which tells whether another page
/// exists without a COUNT.
std::int64_t run_page_fetch_limit(const core::RunQuery& query);
/// The page of `rows` (fetched with run_page_fetch_limit): the extra row dropped, and
/// next_cursor set when there was one.
core::RunPage run_page(std::vector<core::Run> rows, const core::RunQuery& query);

}  // namespace agentry::store

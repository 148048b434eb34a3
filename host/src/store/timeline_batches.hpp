#pragma once
// How a run's timeline is stored, whatever the engine: one row per committed batch of
// its durable events (cursors first..last, consecutive), the events packed in one text.
// A row per event cost a B-tree insert, a foreign-key probe and WAL bytes per event; a
// row per batch costs them once per commit, and the events themselves are appended to a
// string. The packing is length-prefixed, so payloads are kept byte for byte as written:
//
//   event := <kind bytes>:<kind><at bytes>:<at><attempt>;<payload bytes>:<payload>
//
// (<attempt> is empty when the event has none). Both engines' migrations pack older
// per-event rows the same way. Reading a page selects the rows overlapping it and
// unpacks only those; the engines give the rows, this file does the rest.

#include "core/pages.hpp"
#include "core/run.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentry::store {

/// One stored row: the durable events of cursors first_cursor..last_cursor.
struct TimelineBatchRow {
  std::int64_t first_cursor = 0;
  std::int64_t last_cursor = 0;
  /// The lowest and highest attempt numbers among the events (none when no event has
  /// one), so that lookups by attempt skip rows without unpacking them.
  std::optional<int> first_attempt;
  std::optional<int> last_attempt;
  std::string events;
};

/// A row holds at most this many events or bytes (a longer batch becomes several rows),
/// so that reading one page of a long run never unpacks much more than the page.
inline constexpr std::size_t max_events_per_row = 512;
inline constexpr std::size_t max_bytes_per_row = 256 * 1024;

/// Packs the durable events of `events` (cursors already assigned, consecutive;
/// ephemeral ones are skipped) into rows and gives each to `insert`, in cursor order.
/// The row is valid only during the call: its text is a buffer the writer reuses, so a
/// write allocates nothing per row.
void pack_timeline_rows(const std::vector<core::TimelineEvent>& events,
                        const std::function<void(const TimelineBatchRow&)>& insert);
/// The same rows, kept.
std::vector<TimelineBatchRow> pack_timeline_rows(const std::vector<core::TimelineEvent>& events);

/// A stored row as the engine read it. `events` must outlive the call it is given to.
struct StoredBatch {
  std::int64_t first_cursor = 0;
  std::string_view events;
};

/// Gives the next stored row of the scan (false at the end). Ascending or descending
/// cursor order, as the function taking it says.
using NextStoredBatch = std::function<bool(StoredBatch&)>;

/// Calls `visit` with each stored event of cursors (after, upto], at most `limit`, oldest
/// first, from rows given in ascending cursor order; returns how many it visited.
std::size_t visit_timeline_range(std::int64_t after, std::int64_t upto, std::size_t limit, const NextStoredBatch& next,
                                 const core::TimelineEventVisitor& visit);

/// The page `q` of `run_id`'s timeline from the rows overlapping (q.after, q.upto]:
/// ascending cursor order of rows when q.newest is false, descending when it is true.
std::vector<core::TimelineEvent> read_timeline_page(std::string_view run_id, const core::EventPageQuery& q,
                                                    const NextStoredBatch& next);

/// The newest `limit` events of `kind` whose attempt number is within [first, last],
/// oldest first, from rows given newest first. Payloads are decoded.
std::vector<core::TimelineEvent> newest_of_kind(std::string_view run_id, std::string_view kind, int first_attempt,
                                                int last_attempt, std::size_t limit, const NextStoredBatch& next);

}  // namespace agentry::store

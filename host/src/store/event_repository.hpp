#pragma once
// Append-only per-run event logs: the audit trail and the timeline. Cursors are
// reserved from the run row inside the same transaction, so they are monotonic per
// run and never reused, even after a reset deletes the timeline.

#include "core/run.hpp"
#include "store/sqlite.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace agentry::store {

struct EventPageQuery {
  std::int64_t after = 0;  // exclusive
  std::size_t limit = 1000;
  std::int64_t upto = std::numeric_limits<std::int64_t>::max();  // inclusive
  /// The newest `limit` events of the range instead of the oldest (still in cursor
  /// order): a viewer opens a long history at its end and pages backwards.
  bool newest = false;
  /// Timeline only: leave `payload` empty and give the stored text in `payload_json`
  /// (live streams frame it as it is).
  bool stored_payload = false;
};

class AuditRepository {
 public:
  /// Assigns event.cursor and inserts it.
  static void append(Connection& c, core::AuditEvent& event);
  static std::vector<core::AuditEvent> list(Connection& c, std::string_view run_id, const EventPageQuery& q);
  static std::int64_t last_cursor(Connection& c, std::string_view run_id);
};

/// Every append also tells the writer connection's timeline listener, after commit
/// (Connection::set_timeline_listener): that is how live subscribers hear of events.
class TimelineRepository {
 public:
  /// Assigns event.cursor and inserts it.
  static void append(Connection& c, core::TimelineEvent& event);
  /// Assigns consecutive cursors to the durable events of one run (reserved in one
  /// update) and inserts them; ephemeral ones are only streamed. After commit, the
  /// connection's timeline listener gets all of them, in order (moved out of `events`).
  static void append_batch(Connection& c, const std::string& run_id, std::vector<core::TimelineEvent>& events);
  static std::vector<core::TimelineEvent> list(Connection& c, std::string_view run_id, const EventPageQuery& q);
  /// The newest event of `kind` that attempt `attempt_number` recorded, if any.
  static std::optional<core::TimelineEvent> last_of_attempt(Connection& c, std::string_view run_id,
                                                           std::string_view kind, int attempt_number);
  /// The newest `limit` events of `kind` recorded by attempts first..last, oldest first.
  static std::vector<core::TimelineEvent> last_of_attempts(Connection& c, std::string_view run_id,
                                                           std::string_view kind, int first_attempt,
                                                           int last_attempt, std::size_t limit);
  /// The highest cursor ever assigned for the run (0 when none), surviving reset.
  static std::int64_t last_cursor(Connection& c, std::string_view run_id);
  static void remove_all(Connection& c, std::string_view run_id);
};

}  // namespace agentry::store

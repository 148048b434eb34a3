#pragma once
// Append-only per-run event logs: the audit trail and the timeline. Cursors are
// reserved from the run row inside the same transaction, so they are monotonic per
// run and never reused, even after a reset deletes the timeline.

#include "core/pages.hpp"
#include "core/run.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace agentry::store {

class AuditRepository {
 public:
  virtual ~AuditRepository() = default;

  /// Assigns event.cursor and inserts it.
  virtual void append(core::AuditEvent& event) = 0;
  virtual std::vector<core::AuditEvent> list(std::string_view run_id, const core::EventPageQuery& q) = 0;
  virtual std::int64_t last_cursor(std::string_view run_id) = 0;
};

/// Every append also tells the store's timeline listener, after commit
/// (Store::set_timeline_listener): that is how live subscribers hear of events.
class TimelineRepository {
 public:
  virtual ~TimelineRepository() = default;

  /// Assigns event.cursor and inserts it.
  virtual void append(core::TimelineEvent& event) = 0;
  /// Assigns consecutive cursors to the durable events of one run (reserved in one
  /// update) and inserts them; ephemeral ones are only streamed. After commit, the
  /// store's timeline listener gets all of them, in order (moved out of `events`).
  virtual void append_batch(const std::string& run_id, std::vector<core::TimelineEvent>& events) = 0;
  virtual std::vector<core::TimelineEvent> list(std::string_view run_id, const core::EventPageQuery& q) = 0;
  /// Calls `visit` with the stored events of cursors (after, upto], at most `limit`,
  /// oldest first, read in place; returns how many. list() for a reader that only copies
  /// the events on.
  virtual std::size_t visit(std::string_view run_id, std::int64_t after, std::int64_t upto, std::size_t limit,
                            const core::TimelineEventVisitor& visit) = 0;
  /// The newest event of `kind` that attempt `attempt_number` recorded, if any.
  virtual std::optional<core::TimelineEvent> last_of_attempt(std::string_view run_id,
                                                           std::string_view kind, int attempt_number) = 0;
  /// The newest `limit` events of `kind` recorded by attempts first..last, oldest first.
  virtual std::vector<core::TimelineEvent> last_of_attempts(std::string_view run_id,
                                                           std::string_view kind, int first_attempt,
                                                           int last_attempt, std::size_t limit) = 0;
  /// The highest cursor ever assigned for the run (0 when none), surviving reset.
  virtual std::int64_t last_cursor(std::string_view run_id) = 0;
  virtual void remove_all(std::string_view run_id) = 0;
};

}  // namespace agentry::store

#pragma once
// Persistence of the follow-up messages queued for a run's next session. Delivery order
// is insertion order (the table's rowid), so a message queued later is never delivered
// before one queued earlier, even when their timestamps tie.

#include "core/run.hpp"
#include "store/sqlite.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace agentry::store {

struct QueueTotals {
  int count = 0;
  std::int64_t bytes = 0;  // sum of the texts' sizes
};

class QueuedMessageRepository {
 public:
  static void insert(Connection& c, const core::QueuedMessage& message);
  /// Oldest first.
  static std::vector<core::QueuedMessage> list(Connection& c, std::string_view run_id);
  static QueueTotals totals(Connection& c, std::string_view run_id);
  /// False when the run has no message with that id (removed or delivered already).
  static bool remove(Connection& c, std::string_view run_id, std::string_view message_id);
  /// Returns how many were removed.
  static int remove_all(Connection& c, std::string_view run_id);
  /// Every run that has at least one queued message (startup recovery).
  static std::vector<std::string> run_ids(Connection& c);
};

}  // namespace agentry::store

#pragma once
// Persistence of the follow-up messages queued for a run's next session. Delivery order
// is insertion order (the table's rowid), so a message queued later is never delivered
// before one queued earlier, even when their timestamps tie.

#include "core/run.hpp"

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
  virtual ~QueuedMessageRepository() = default;

  virtual void insert(const core::QueuedMessage& message) = 0;
  /// Oldest first.
  virtual std::vector<core::QueuedMessage> list(std::string_view run_id) = 0;
  virtual QueueTotals totals(std::string_view run_id) = 0;
  /// False when the run has no message with that id (removed or delivered already).
  virtual bool remove(std::string_view run_id, std::string_view message_id) = 0;
  /// Returns how many were removed.
  virtual int remove_all(std::string_view run_id) = 0;
  /// Every run that has at least one queued message (startup recovery).
  virtual std::vector<std::string> run_ids() = 0;
};

}  // namespace agentry::store

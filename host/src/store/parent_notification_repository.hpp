#pragma once
// Persistence of parent-completion notifications: one row per child session that owes
// its parent a message (engine/parent_completion/parent_notifications.hpp). A row is written pending when
// the session is allocated and becomes delivered or skipped exactly once.

#include "core/run.hpp"

#include <optional>
#include <string>
#include <vector>

namespace agentry::store {

class ParentNotificationRepository {
 public:
  virtual ~ParentNotificationRepository() = default;

  /// Inserts (or, for the same child session, replaces) the row.
  virtual void upsert(const core::ParentNotification& notification) = 0;
  /// The pending rows of one child, oldest session first.
  virtual std::vector<core::ParentNotification> pending(std::string_view child_run_id) = 0;
  /// The child's row for its latest session that has one.
  virtual std::optional<core::ParentNotification> latest(std::string_view child_run_id) = 0;
  /// Every child with a pending row (the startup sweep).
  virtual std::vector<std::string> children_with_pending() = 0;
  /// Every row of the child (reset). Returns how many were removed.
  virtual int remove_all(std::string_view child_run_id) = 0;
};

}  // namespace agentry::store

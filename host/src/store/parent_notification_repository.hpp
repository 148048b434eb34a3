#pragma once
// Persistence of parent-completion notifications: one row per child session that owes
// its parent a message (engine/parent_notifications.hpp). A row is written pending when
// the session is allocated and becomes delivered or skipped exactly once.

#include "core/run.hpp"
#include "store/sqlite.hpp"

#include <optional>
#include <string>
#include <vector>

namespace agentry::store {

class ParentNotificationRepository {
 public:
  /// Inserts (or, for the same child session, replaces) the row.
  static void upsert(Connection& c, const core::ParentNotification& notification);
  /// The pending rows of one child, oldest session first.
  static std::vector<core::ParentNotification> pending(Connection& c, std::string_view child_run_id);
  /// The child's row for its latest session that has one.
  static std::optional<core::ParentNotification> latest(Connection& c, std::string_view child_run_id);
  /// Every child with a pending row (the startup sweep).
  static std::vector<std::string> children_with_pending(Connection& c);
  /// Every row of the child (reset). Returns how many were removed.
  static int remove_all(Connection& c, std::string_view child_run_id);
};

}  // namespace agentry::store

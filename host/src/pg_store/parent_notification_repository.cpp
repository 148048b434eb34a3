#include "pg_store/repositories.hpp"

// PLACEHOLDER: replaced by the port of sqlite_store/parent_notification_repository.cpp
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace agentry::pg_store {

void ParentNotificationRepository::upsert(const core::ParentNotification& notification) {
  throw PgError("ParentNotificationRepository::upsert is not ported yet", "");
}

std::vector<core::ParentNotification> ParentNotificationRepository::pending(std::string_view child_run_id) {
  throw PgError("ParentNotificationRepository::pending is not ported yet", "");
}

std::optional<core::ParentNotification> ParentNotificationRepository::latest(std::string_view child_run_id) {
  throw PgError("ParentNotificationRepository::latest is not ported yet", "");
}

std::vector<std::string> ParentNotificationRepository::children_with_pending() {
  throw PgError("ParentNotificationRepository::children_with_pending is not ported yet", "");
}

int ParentNotificationRepository::remove_all(std::string_view child_run_id) {
  throw PgError("ParentNotificationRepository::remove_all is not ported yet", "");
}

}  // namespace agentry::pg_store

#include "pg_store/repositories.hpp"

// PLACEHOLDER: replaced by the port of sqlite_store/notification_repository.cpp
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace agentry::pg_store {

bool NotificationRepository::insert(const OutboxEntry& entry) {
  throw PgError("NotificationRepository::insert is not ported yet", "");
}

std::vector<OutboxEntry> NotificationRepository::due(std::int64_t now_ms, int limit) {
  throw PgError("NotificationRepository::due is not ported yet", "");
}

std::optional<std::int64_t> NotificationRepository::next_due() {
  throw PgError("NotificationRepository::next_due is not ported yet", "");
}

std::optional<OutboxEntry> NotificationRepository::get(std::int64_t id) {
  throw PgError("NotificationRepository::get is not ported yet", "");
}

std::vector<OutboxEntry> NotificationRepository::list_for_run(std::string_view run_id) {
  throw PgError("NotificationRepository::list_for_run is not ported yet", "");
}

void NotificationRepository::update(const OutboxEntry& entry) {
  throw PgError("NotificationRepository::update is not ported yet", "");
}

void NotificationRepository::release(std::int64_t id, const std::string& payload_json, std::int64_t due_ms) {
  throw PgError("NotificationRepository::release is not ported yet", "");
}

int NotificationRepository::release_all_held(std::int64_t due_ms) {
  throw PgError("NotificationRepository::release_all_held is not ported yet", "");
}

}  // namespace agentry::pg_store

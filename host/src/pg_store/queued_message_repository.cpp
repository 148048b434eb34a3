#include "pg_store/repositories.hpp"

// PLACEHOLDER: replaced by the port of sqlite_store/queued_message_repository.cpp
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace agentry::pg_store {

void QueuedMessageRepository::insert(const core::QueuedMessage& message) {
  throw PgError("QueuedMessageRepository::insert is not ported yet", "");
}

std::vector<core::QueuedMessage> QueuedMessageRepository::list(std::string_view run_id) {
  throw PgError("QueuedMessageRepository::list is not ported yet", "");
}

QueueTotals QueuedMessageRepository::totals(std::string_view run_id) {
  throw PgError("QueuedMessageRepository::totals is not ported yet", "");
}

bool QueuedMessageRepository::remove(std::string_view run_id, std::string_view message_id) {
  throw PgError("QueuedMessageRepository::remove is not ported yet", "");
}

int QueuedMessageRepository::remove_all(std::string_view run_id) {
  throw PgError("QueuedMessageRepository::remove_all is not ported yet", "");
}

std::vector<std::string> QueuedMessageRepository::run_ids() {
  throw PgError("QueuedMessageRepository::run_ids is not ported yet", "");
}

}  // namespace agentry::pg_store

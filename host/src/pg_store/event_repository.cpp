#include "pg_store/repositories.hpp"

// PLACEHOLDER: replaced by the port of sqlite_store/event_repository.cpp
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace agentry::pg_store {

void AuditRepository::append(core::AuditEvent& event) {
  throw PgError("AuditRepository::append is not ported yet", "");
}

std::vector<core::AuditEvent> AuditRepository::list(std::string_view run_id, const core::EventPageQuery& q) {
  throw PgError("AuditRepository::list is not ported yet", "");
}

std::int64_t AuditRepository::last_cursor(std::string_view run_id) {
  throw PgError("AuditRepository::last_cursor is not ported yet", "");
}

void TimelineRepository::append(core::TimelineEvent& event) {
  throw PgError("TimelineRepository::append is not ported yet", "");
}

void TimelineRepository::append_batch(const std::string& run_id, std::vector<core::TimelineEvent>& events) {
  throw PgError("TimelineRepository::append_batch is not ported yet", "");
}

std::vector<core::TimelineEvent> TimelineRepository::list(std::string_view run_id, const core::EventPageQuery& q) {
  throw PgError("TimelineRepository::list is not ported yet", "");
}

std::optional<core::TimelineEvent> TimelineRepository::last_of_attempt(std::string_view run_id, std::string_view kind, int attempt_number) {
  throw PgError("TimelineRepository::last_of_attempt is not ported yet", "");
}

std::vector<core::TimelineEvent> TimelineRepository::last_of_attempts(std::string_view run_id, std::string_view kind, int first_attempt, int last_attempt, std::size_t limit) {
  throw PgError("TimelineRepository::last_of_attempts is not ported yet", "");
}

std::int64_t TimelineRepository::last_cursor(std::string_view run_id) {
  throw PgError("TimelineRepository::last_cursor is not ported yet", "");
}

void TimelineRepository::remove_all(std::string_view run_id) {
  throw PgError("TimelineRepository::remove_all is not ported yet", "");
}

}  // namespace agentry::pg_store

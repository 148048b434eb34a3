#include "pg_store/repositories.hpp"

// PLACEHOLDER: replaced by the port of sqlite_store/session_repository.cpp
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace agentry::pg_store {

void SessionRepository::insert(const core::Session& session) {
  throw PgError("SessionRepository::insert is not ported yet", "");
}

void SessionRepository::update(const core::Session& session) {
  throw PgError("SessionRepository::update is not ported yet", "");
}

std::optional<core::Session> SessionRepository::get(std::string_view run_id, int index) {
  throw PgError("SessionRepository::get is not ported yet", "");
}

std::vector<core::Session> SessionRepository::list(std::string_view run_id) {
  throw PgError("SessionRepository::list is not ported yet", "");
}

std::map<std::string, core::Session> SessionRepository::latest(const std::vector<std::string>& run_ids) {
  throw PgError("SessionRepository::latest is not ported yet", "");
}

void SessionRepository::insert_attempt(const core::Attempt& attempt) {
  throw PgError("SessionRepository::insert_attempt is not ported yet", "");
}

void SessionRepository::update_attempt(const core::Attempt& attempt) {
  throw PgError("SessionRepository::update_attempt is not ported yet", "");
}

std::vector<core::Attempt> SessionRepository::list_attempts(std::string_view run_id) {
  throw PgError("SessionRepository::list_attempts is not ported yet", "");
}

void SessionRepository::remove_all(std::string_view run_id) {
  throw PgError("SessionRepository::remove_all is not ported yet", "");
}

}  // namespace agentry::pg_store

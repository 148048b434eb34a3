#include "pg_store/repositories.hpp"

// PLACEHOLDER: replaced by the port of sqlite_store/run_repository.cpp
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace agentry::pg_store {

void RunRepository::insert(const core::Run& run) {
  throw PgError("RunRepository::insert is not ported yet", "");
}

bool RunRepository::update(const core::Run& run) {
  throw PgError("RunRepository::update is not ported yet", "");
}

std::optional<core::Run> RunRepository::get(std::string_view id) {
  throw PgError("RunRepository::get is not ported yet", "");
}

bool RunRepository::exists(std::string_view id) {
  throw PgError("RunRepository::exists is not ported yet", "");
}

std::vector<std::string> RunRepository::ids_updated_since(std::string_view since) {
  throw PgError("RunRepository::ids_updated_since is not ported yet", "");
}

std::int64_t RunRepository::others_commit_mark() {
  throw PgError("RunRepository::others_commit_mark is not ported yet", "");
}

std::int64_t RunRepository::count_live_children(std::string_view parent_id) {
  throw PgError("RunRepository::count_live_children is not ported yet", "");
}

bool RunRepository::remove(std::string_view id) {
  throw PgError("RunRepository::remove is not ported yet", "");
}

core::RunPage RunRepository::list(const core::RunQuery& query) {
  throw PgError("RunRepository::list is not ported yet", "");
}

std::vector<std::string> RunRepository::ids_with_status(core::RunStatus status) {
  throw PgError("RunRepository::ids_with_status is not ported yet", "");
}

std::vector<std::pair<std::string, std::string>> RunRepository::child_statuses(std::string_view parent_run_id) {
  throw PgError("RunRepository::child_statuses is not ported yet", "");
}

bool RunRepository::set_diffstat(std::string_view id, const std::optional<core::DiffStat>& stat) {
  throw PgError("RunRepository::set_diffstat is not ported yet", "");
}

void RunRepository::set_initial_snapshot(std::string_view id, const std::string& json) {
  throw PgError("RunRepository::set_initial_snapshot is not ported yet", "");
}

std::optional<std::string> RunRepository::initial_snapshot(std::string_view id) {
  throw PgError("RunRepository::initial_snapshot is not ported yet", "");
}

std::int64_t RunRepository::next_audit_cursor(std::string_view id) {
  throw PgError("RunRepository::next_audit_cursor is not ported yet", "");
}

std::int64_t RunRepository::next_timeline_cursor(std::string_view id, std::int64_t count) {
  throw PgError("RunRepository::next_timeline_cursor is not ported yet", "");
}

}  // namespace agentry::pg_store

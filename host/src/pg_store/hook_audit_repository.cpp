#include "pg_store/repositories.hpp"

// PLACEHOLDER: replaced by the port of sqlite_store/hook_audit_repository.cpp
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace agentry::pg_store {

void HookAuditRepository::append(std::string_view run_id, const std::vector<core::HookAudit>& audits, int keep) {
  throw PgError("HookAuditRepository::append is not ported yet", "");
}

int HookAuditRepository::count(std::string_view run_id) {
  throw PgError("HookAuditRepository::count is not ported yet", "");
}

std::vector<core::HookAudit> HookAuditRepository::latest(std::string_view run_id, int limit) {
  throw PgError("HookAuditRepository::latest is not ported yet", "");
}

void RunWorktreeRepository::set(std::string_view run_id, const std::string& json) {
  throw PgError("RunWorktreeRepository::set is not ported yet", "");
}

std::optional<std::string> RunWorktreeRepository::get(std::string_view run_id) {
  throw PgError("RunWorktreeRepository::get is not ported yet", "");
}

}  // namespace agentry::pg_store

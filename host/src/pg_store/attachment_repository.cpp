#include "pg_store/repositories.hpp"

// PLACEHOLDER: replaced by the port of sqlite_store/attachment_repository.cpp
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace agentry::pg_store {

void AttachmentRepository::insert(const core::Attachment& a) {
  throw PgError("AttachmentRepository::insert is not ported yet", "");
}

std::vector<core::Attachment> AttachmentRepository::list_for_run(std::string_view run_id) {
  throw PgError("AttachmentRepository::list_for_run is not ported yet", "");
}

std::vector<core::Attachment> AttachmentRepository::list_for_group(std::string_view group_id) {
  throw PgError("AttachmentRepository::list_for_group is not ported yet", "");
}

std::optional<core::Attachment> AttachmentRepository::get(std::string_view run_id, std::string_view id) {
  throw PgError("AttachmentRepository::get is not ported yet", "");
}

std::optional<core::Attachment> AttachmentRepository::get_in_group(std::string_view group_id, std::string_view id) {
  throw PgError("AttachmentRepository::get_in_group is not ported yet", "");
}

void AttachmentRepository::remove(std::string_view id) {
  throw PgError("AttachmentRepository::remove is not ported yet", "");
}

AttachmentTotals AttachmentRepository::totals_for_run(std::string_view run_id) {
  throw PgError("AttachmentRepository::totals_for_run is not ported yet", "");
}

int AttachmentRepository::references(std::string_view sha256) {
  throw PgError("AttachmentRepository::references is not ported yet", "");
}

std::set<std::string> AttachmentRepository::referenced() {
  throw PgError("AttachmentRepository::referenced is not ported yet", "");
}

}  // namespace agentry::pg_store

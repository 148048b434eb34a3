#include "sqlite_store/repositories.hpp"
namespace agentry::sqlite_store {
namespace {

constexpr const char* attachment_columns = "id, run_id, run_group_id, name, sha256, size, content_type, created_at";

core::Attachment read(Statement& s) {
  core::Attachment a;
  a.id = s.column_text(0);
  a.run_id = s.column_text(1);
  a.run_group_id = s.column_text(2);
  a.name = s.column_text(3);
  a.sha256 = s.column_text(4);
  a.size = static_cast<std::uint64_t>(s.column_int64(5));
  a.content_type = s.column_text(6);
  a.created_at = s.column_text(7);
  return a;
}

std::vector<core::Attachment> read_all(Statement& s) {
  std::vector<core::Attachment> out;
  while (s.step()) out.push_back(read(s));
  return out;
}

}  // namespace

void AttachmentRepository::insert(const core::Attachment& a) {
  auto s = c_.prepare(std::string("INSERT INTO attachments (") + attachment_columns + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, a.id).bind(2, a.run_id).bind(3, a.run_group_id).bind(4, a.name).bind(5, a.sha256);
  s.bind(6, static_cast<std::int64_t>(a.size)).bind(7, a.content_type).bind(8, a.created_at);
  s.run();
}

std::vector<core::Attachment> AttachmentRepository::list_for_run(std::string_view run_id) {
  auto s = c_.prepare(std::string("SELECT ") + attachment_columns + " FROM attachments WHERE run_id = ? ORDER BY created_at, id");
  s.bind(1, run_id);
  return read_all(s);
}

std::vector<core::Attachment> AttachmentRepository::list_for_group(std::string_view group_id) {
  auto s = c_.prepare(std::string("SELECT ") + attachment_columns +
                     " FROM attachments WHERE run_group_id = ? ORDER BY created_at, id");
  s.bind(1, group_id);
  return read_all(s);
}

std::optional<core::Attachment> AttachmentRepository::get(std::string_view run_id,
                                                          std::string_view id) {
  auto s = c_.prepare(std::string("SELECT ") + attachment_columns + " FROM attachments WHERE run_id = ? AND id = ?");
  s.bind(1, run_id).bind(2, id);
  if (!s.step()) return std::nullopt;
  return read(s);
}

std::optional<core::Attachment> AttachmentRepository::get_in_group(std::string_view group_id,
                                                                   std::string_view id) {
  auto s = c_.prepare(std::string("SELECT ") + attachment_columns + " FROM attachments WHERE run_group_id = ? AND id = ?");
  s.bind(1, group_id).bind(2, id);
  if (!s.step()) return std::nullopt;
  return read(s);
}

void AttachmentRepository::remove(std::string_view id) {
  auto s = c_.prepare("DELETE FROM attachments WHERE id = ?");
  s.bind(1, id);
  s.run();
}

AttachmentTotals AttachmentRepository::totals_for_run(std::string_view run_id) {
  auto s = c_.prepare("SELECT COUNT(*), COALESCE(SUM(size), 0) FROM attachments WHERE run_id = ?");
  s.bind(1, run_id);
  AttachmentTotals t;
  if (s.step()) {
    t.count = s.column_int(0);
    t.bytes = static_cast<std::uint64_t>(s.column_int64(1));
  }
  return t;
}

int AttachmentRepository::references(std::string_view sha256) {
  auto s = c_.prepare("SELECT COUNT(*) FROM attachments WHERE sha256 = ?");
  s.bind(1, sha256);
  return s.step() ? s.column_int(0) : 0;
}

std::set<std::string> AttachmentRepository::referenced() {
  auto s = c_.prepare("SELECT DISTINCT sha256 FROM attachments");
  std::set<std::string> out;
  while (s.step()) out.insert(s.column_text(0));
  return out;
}

}  // namespace agentry::sqlite_store

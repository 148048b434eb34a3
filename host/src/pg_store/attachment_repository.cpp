#include "pg_store/repositories.hpp"

namespace agentry::pg_store {
namespace {

constexpr std::string_view attachment_columns = "id, run_id, run_group_id, name, sha256, size, content_type, created_at";

core::Attachment read(const Row& row) {
  core::Attachment a;
  a.id = row[0].text();
  a.run_id = row[1].text();
  a.run_group_id = row[2].text();
  a.name = row[3].text();
  a.sha256 = row[4].text();
  a.size = static_cast<std::uint64_t>(row[5].int64());
  a.content_type = row[6].text();
  a.created_at = row[7].text();
  return a;
}

std::vector<core::Attachment> read_all(const Result& result) {
  std::vector<core::Attachment> out;
  out.reserve(static_cast<std::size_t>(result.rows()));
  for (int i = 0; i < result.rows(); ++i) out.push_back(read(result.row(i)));
  return out;
}

std::optional<core::Attachment> read_one(const Result& result) {
  if (result.rows() == 0) return std::nullopt;
  return read(result.row(0));
}

std::string select_attachments(std::string_view rest) {
  return "SELECT " + std::string(attachment_columns) + " FROM attachments " + std::string(rest);
}

}  // namespace

void AttachmentRepository::insert(const core::Attachment& a) {
  c_.query("INSERT INTO attachments (" + std::string(attachment_columns) + ") VALUES ($1,$2,$3,$4,$5,$6,$7,$8)",
           {a.id, a.run_id, a.run_group_id, a.name, a.sha256, static_cast<std::int64_t>(a.size), a.content_type,
            a.created_at});
}

std::vector<core::Attachment> AttachmentRepository::list_for_run(std::string_view run_id) {
  return read_all(c_.query(select_attachments("WHERE run_id = $1 ORDER BY created_at, id"), {run_id}));
}

std::vector<core::Attachment> AttachmentRepository::list_for_group(std::string_view group_id) {
  return read_all(c_.query(select_attachments("WHERE run_group_id = $1 ORDER BY created_at, id"), {group_id}));
}

std::optional<core::Attachment> AttachmentRepository::get(std::string_view run_id, std::string_view id) {
  return read_one(c_.query(select_attachments("WHERE run_id = $1 AND id = $2"), {run_id, id}));
}

std::optional<core::Attachment> AttachmentRepository::get_in_group(std::string_view group_id, std::string_view id) {
  return read_one(c_.query(select_attachments("WHERE run_group_id = $1 AND id = $2"), {group_id, id}));
}

void AttachmentRepository::remove(std::string_view id) { c_.query("DELETE FROM attachments WHERE id = $1", {id}); }

AttachmentTotals AttachmentRepository::totals_for_run(std::string_view run_id) {
  // sum(bigint) is numeric in PostgreSQL: cast back to read it as an integer.
  auto result = c_.query("SELECT count(*), COALESCE(sum(size), 0)::bigint FROM attachments WHERE run_id = $1",
                         {run_id});
  return {static_cast<int>(result.row(0)[0].int64()), static_cast<std::uint64_t>(result.row(0)[1].int64())};
}

int AttachmentRepository::references(std::string_view sha256) {
  return static_cast<int>(
      c_.query("SELECT count(*) FROM attachments WHERE sha256 = $1", {sha256}).row(0)[0].int64());
}

std::set<std::string> AttachmentRepository::referenced() {
  auto result = c_.query("SELECT DISTINCT sha256 FROM attachments");
  std::set<std::string> out;
  for (int i = 0; i < result.rows(); ++i) out.insert(result.row(i)[0].text());
  return out;
}

}  // namespace agentry::pg_store

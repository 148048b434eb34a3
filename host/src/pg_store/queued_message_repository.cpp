#include "pg_store/repositories.hpp"
#include "store/queued_message_codec.hpp"

namespace agentry::pg_store {

void QueuedMessageRepository::insert(const core::QueuedMessage& m) {
  c_.query("INSERT INTO queued_messages (id, run_id, text, source_json, created_at) VALUES ($1,$2,$3,$4,$5)",
           {m.id, m.run_id, m.text, store::encode_message_source(m.source), m.created_at});
}

std::vector<core::QueuedMessage> QueuedMessageRepository::list(std::string_view run_id) {
  // seq, the identity column, is insertion order (SQLite's rowid); timestamps may tie.
  auto result = c_.query("SELECT id, run_id, text, source_json, created_at FROM queued_messages WHERE run_id = $1 "
                         "ORDER BY seq",
                         {run_id});
  std::vector<core::QueuedMessage> out;
  out.reserve(static_cast<std::size_t>(result.rows()));
  for (int i = 0; i < result.rows(); ++i) {
    auto row = result.row(i);
    core::QueuedMessage m;
    m.id = row[0].text();
    m.run_id = row[1].text();
    m.text = row[2].text();
    m.source = store::decode_message_source(row[3].text());
    m.created_at = row[4].text();
    out.push_back(std::move(m));
  }
  return out;
}

QueueTotals QueuedMessageRepository::totals(std::string_view run_id) {
  // octet_length: bytes, as SQLite's length(CAST(text AS BLOB)); sum(int) is bigint.
  auto result = c_.query("SELECT count(*), coalesce(sum(octet_length(text)), 0) FROM queued_messages "
                         "WHERE run_id = $1",
                         {run_id});
  return {static_cast<int>(result.row(0)[0].int64()), result.row(0)[1].int64()};
}

bool QueuedMessageRepository::remove(std::string_view run_id, std::string_view message_id) {
  return c_.query("DELETE FROM queued_messages WHERE run_id = $1 AND id = $2", {run_id, message_id})
             .affected_rows() > 0;
}

int QueuedMessageRepository::remove_all(std::string_view run_id) {
  return static_cast<int>(c_.query("DELETE FROM queued_messages WHERE run_id = $1", {run_id}).affected_rows());
}

std::vector<std::string> QueuedMessageRepository::run_ids() {
  auto result = c_.query("SELECT DISTINCT run_id FROM queued_messages");
  std::vector<std::string> out;
  for (int i = 0; i < result.rows(); ++i) out.push_back(result.row(i)[0].text());
  return out;
}

}  // namespace agentry::pg_store

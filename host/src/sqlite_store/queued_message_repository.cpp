#include "sqlite_store/repositories.hpp"
#include "store/queued_message_codec.hpp"

namespace agentry::sqlite_store {

void QueuedMessageRepository::insert(const core::QueuedMessage& m) {
  auto s = c_.prepare("INSERT INTO queued_messages (id, run_id, text, source_json, created_at) VALUES (?,?,?,?,?)");
  s.bind(1, m.id).bind(2, m.run_id).bind(3, m.text).bind(4, store::encode_message_source(m.source));
  s.bind(5, m.created_at);
  s.run();
}

std::vector<core::QueuedMessage> QueuedMessageRepository::list(std::string_view run_id) {
  auto s = c_.prepare("SELECT id, run_id, text, source_json, created_at FROM queued_messages WHERE run_id = ? "
                     "ORDER BY rowid");
  s.bind(1, run_id);
  std::vector<core::QueuedMessage> out;
  while (s.step()) {
    core::QueuedMessage m;
    m.id = s.column_text(0);
    m.run_id = s.column_text(1);
    m.text = s.column_text(2);
    m.source = store::decode_message_source(s.column_text(3));
    m.created_at = s.column_text(4);
    out.push_back(std::move(m));
  }
  return out;
}

QueueTotals QueuedMessageRepository::totals(std::string_view run_id) {
  auto s = c_.prepare("SELECT count(*), coalesce(sum(length(CAST(text AS BLOB))), 0) FROM queued_messages "
                     "WHERE run_id = ?");
  s.bind(1, run_id);
  QueueTotals t;
  if (s.step()) {
    t.count = s.column_int(0);
    t.bytes = s.column_int64(1);
  }
  return t;
}

bool QueuedMessageRepository::remove(std::string_view run_id, std::string_view message_id) {
  auto s = c_.prepare("DELETE FROM queued_messages WHERE run_id = ? AND id = ?");
  s.bind(1, run_id).bind(2, message_id);
  s.run();
  return c_.changes() > 0;
}

int QueuedMessageRepository::remove_all(std::string_view run_id) {
  auto s = c_.prepare("DELETE FROM queued_messages WHERE run_id = ?");
  s.bind(1, run_id);
  s.run();
  return static_cast<int>(c_.changes());
}

std::vector<std::string> QueuedMessageRepository::run_ids() {
  auto s = c_.prepare("SELECT DISTINCT run_id FROM queued_messages");
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.column_text(0));
  return out;
}

}  // namespace agentry::sqlite_store

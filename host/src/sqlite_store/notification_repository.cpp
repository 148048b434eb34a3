#include "sqlite_store/repositories.hpp"
namespace agentry::sqlite_store {
namespace {

constexpr std::string_view outbox_columns =
    "id, run_id, event, idempotency_key, target_index, target_json, payload_json, state, attempts, "
    "next_attempt_ms, last_error, created_at, updated_at, delivered_at";

OutboxEntry read_outbox(const Statement& s) {
  OutboxEntry e;
  e.id = s.column_int64(0);
  e.run_id = s.column_text(1);
  e.event = s.column_text(2);
  e.idempotency_key = s.column_text(3);
  e.target_index = s.column_int(4);
  e.target_json = s.column_text(5);
  e.payload_json = s.column_text(6);
  e.state = s.column_text(7);
  e.attempts = s.column_int(8);
  e.next_attempt_ms = s.column_int64(9);
  e.last_error = s.column_text(10);
  e.created_at = s.column_text(11);
  e.updated_at = s.column_text(12);
  e.delivered_at = s.column_optional_text(13);
  return e;
}

std::string select_outbox(std::string_view rest) { return "SELECT " + std::string(outbox_columns) + " FROM notification_outbox " + std::string(rest); }

}  // namespace

bool NotificationRepository::insert(const OutboxEntry& e) {
  auto s = c_.prepare(
      "INSERT INTO notification_outbox (run_id, event, idempotency_key, target_index, target_json, payload_json, "
      "state, attempts, next_attempt_ms, last_error, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?) "
      "ON CONFLICT (idempotency_key, target_index) DO NOTHING");
  s.bind(1, e.run_id).bind(2, e.event).bind(3, e.idempotency_key).bind(4, e.target_index).bind(5, e.target_json);
  s.bind(6, e.payload_json).bind(7, e.state).bind(8, e.attempts).bind(9, e.next_attempt_ms).bind(10, e.last_error);
  s.bind(11, e.created_at).bind(12, e.updated_at);
  s.run();
  return c_.changes() > 0;
}

std::vector<OutboxEntry> NotificationRepository::due(std::int64_t now_ms, int limit) {
  static const std::string sql = select_outbox("WHERE state = 'pending' AND next_attempt_ms <= ? ORDER BY next_attempt_ms, id LIMIT ?");
  auto s = c_.prepare(sql);
  s.bind(1, now_ms).bind(2, limit);
  std::vector<OutboxEntry> out;
  while (s.step()) out.push_back(read_outbox(s));
  return out;
}

std::optional<std::int64_t> NotificationRepository::next_due() {
  auto s = c_.prepare("SELECT min(next_attempt_ms) FROM notification_outbox WHERE state = 'pending'");
  if (s.step() && !s.column_is_null(0)) return s.column_int64(0);
  return std::nullopt;
}

std::int64_t NotificationRepository::pending_count() {
  auto s = c_.prepare("SELECT count(*) FROM notification_outbox WHERE state = 'pending'");
  return s.step() ? s.column_int64(0) : 0;
}

std::optional<OutboxEntry> NotificationRepository::get(std::int64_t id) {
  static const std::string sql = select_outbox("WHERE id = ?");
  auto s = c_.prepare(sql);
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  return read_outbox(s);
}

std::vector<OutboxEntry> NotificationRepository::list_for_run(std::string_view run_id) {
  static const std::string sql = select_outbox("WHERE run_id = ? ORDER BY id");
  auto s = c_.prepare(sql);
  s.bind(1, run_id);
  std::vector<OutboxEntry> out;
  while (s.step()) out.push_back(read_outbox(s));
  return out;
}

void NotificationRepository::update(const OutboxEntry& e) {
  auto s = c_.prepare(
      "UPDATE notification_outbox SET state = ?, attempts = ?, next_attempt_ms = ?, last_error = ?, updated_at = ?, "
      "delivered_at = ? WHERE id = ?");
  s.bind(1, e.state).bind(2, e.attempts).bind(3, e.next_attempt_ms).bind(4, e.last_error).bind(5, e.updated_at);
  s.bind(6, e.delivered_at).bind(7, e.id);
  s.run();
}

void NotificationRepository::release(std::int64_t id, const std::string& payload_json,
                                     std::int64_t due_ms) {
  auto s = c_.prepare(
      "UPDATE notification_outbox SET state = 'pending', payload_json = ?2, next_attempt_ms = ?3 "
      "WHERE id = ?1 AND state = 'held'");
  s.bind(1, id).bind(2, payload_json).bind(3, due_ms);
  s.run();
}

int NotificationRepository::release_all_held(std::int64_t due_ms) {
  auto s = c_.prepare("UPDATE notification_outbox SET state = 'pending', next_attempt_ms = ? WHERE state = 'held'");
  s.bind(1, due_ms);
  s.run();
  return static_cast<int>(c_.changes());
}

bool NotificationRepository::claim(std::int64_t id, std::int64_t read_next_ms, std::int64_t until_ms) {
  auto s = c_.prepare("UPDATE notification_outbox SET next_attempt_ms = ?3 "
                      "WHERE id = ?1 AND state = 'pending' AND next_attempt_ms = ?2");
  s.bind(1, id).bind(2, read_next_ms).bind(3, until_ms);
  s.run();
  return c_.changes() > 0;
}

}  // namespace agentry::sqlite_store

#include "pg_store/repositories.hpp"

namespace agentry::pg_store {
namespace {

constexpr std::string_view outbox_columns =
    "id, run_id, event, idempotency_key, target_index, target_json, payload_json, state, attempts, "
    "next_attempt_ms, last_error, created_at, updated_at, delivered_at";

OutboxEntry read_outbox(const Row& row) {
  OutboxEntry e;
  e.id = row[0].int64();
  e.run_id = row[1].text();
  e.event = row[2].text();
  e.idempotency_key = row[3].text();
  e.target_index = static_cast<int>(row[4].int64());
  e.target_json = row[5].text();
  e.payload_json = row[6].text();
  e.state = row[7].text();
  e.attempts = static_cast<int>(row[8].int64());
  e.next_attempt_ms = row[9].int64();
  e.last_error = row[10].text();
  e.created_at = row[11].text();
  e.updated_at = row[12].text();
  e.delivered_at = row[13].optional_text();
  return e;
}

std::vector<OutboxEntry> read_rows(const Result& result) {
  std::vector<OutboxEntry> out;
  out.reserve(static_cast<std::size_t>(result.rows()));
  for (int i = 0; i < result.rows(); ++i) out.push_back(read_outbox(result.row(i)));
  return out;
}

std::string select_outbox(std::string_view rest) {
  return "SELECT " + std::string(outbox_columns) + " FROM notification_outbox " + std::string(rest);
}

}  // namespace

bool NotificationRepository::insert(const OutboxEntry& e) {
  // DO NOTHING, not a caught unique violation: a failed statement would abort the batch.
  return c_.query("INSERT INTO notification_outbox (run_id, event, idempotency_key, target_index, target_json, "
                  "payload_json, state, attempts, next_attempt_ms, last_error, created_at, updated_at) "
                  "VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12) "
                  "ON CONFLICT (idempotency_key, target_index) DO NOTHING",
                  {e.run_id, e.event, e.idempotency_key, e.target_index, e.target_json, e.payload_json, e.state,
                   e.attempts, e.next_attempt_ms, e.last_error, e.created_at, e.updated_at})
             .affected_rows() > 0;
}

std::vector<OutboxEntry> NotificationRepository::due(std::int64_t now_ms, int limit) {
  static const std::string sql =
      select_outbox("WHERE state = 'pending' AND next_attempt_ms <= $1 ORDER BY next_attempt_ms, id LIMIT $2");
  return read_rows(c_.query(sql, {now_ms, limit}));
}

std::optional<std::int64_t> NotificationRepository::next_due() {
  auto result = c_.query("SELECT min(next_attempt_ms) FROM notification_outbox WHERE state = 'pending'");
  if (result.row(0)[0].is_null()) return std::nullopt;
  return result.row(0)[0].int64();
}

std::int64_t NotificationRepository::pending_count() {
  return c_.query("SELECT count(*) FROM notification_outbox WHERE state = 'pending'").row(0)[0].int64();
}

std::optional<OutboxEntry> NotificationRepository::get(std::int64_t id) {
  static const std::string sql = select_outbox("WHERE id = $1");
  auto result = c_.query(sql, {id});
  if (result.rows() == 0) return std::nullopt;
  return read_outbox(result.row(0));
}

std::vector<OutboxEntry> NotificationRepository::list_for_run(std::string_view run_id) {
  static const std::string sql = select_outbox("WHERE run_id = $1 ORDER BY id");
  return read_rows(c_.query(sql, {run_id}));
}

void NotificationRepository::update(const OutboxEntry& e) {
  c_.query("UPDATE notification_outbox SET state = $1, attempts = $2, next_attempt_ms = $3, last_error = $4, "
           "updated_at = $5, delivered_at = $6 WHERE id = $7",
           {e.state, e.attempts, e.next_attempt_ms, e.last_error, e.updated_at, e.delivered_at, e.id});
}

void NotificationRepository::release(std::int64_t id, const std::string& payload_json, std::int64_t due_ms) {
  c_.query("UPDATE notification_outbox SET state = 'pending', payload_json = $2, next_attempt_ms = $3 "
           "WHERE id = $1 AND state = 'held'",
           {id, payload_json, due_ms});
}

int NotificationRepository::release_all_held(std::int64_t due_ms) {
  return static_cast<int>(
      c_.query("UPDATE notification_outbox SET state = 'pending', next_attempt_ms = $1 WHERE state = 'held'",
               {due_ms})
          .affected_rows());
}

bool NotificationRepository::claim(std::int64_t id, std::int64_t read_next_ms, std::int64_t until_ms) {
  return c_.query("UPDATE notification_outbox SET next_attempt_ms = $3 "
                  "WHERE id = $1 AND state = 'pending' AND next_attempt_ms = $2",
                  {id, read_next_ms, until_ms})
             .affected_rows() > 0;
}

}  // namespace agentry::pg_store

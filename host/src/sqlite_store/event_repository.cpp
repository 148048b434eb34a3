#include "sqlite_store/repositories.hpp"
#include "store/payload_codec.hpp"

#include <algorithm>

#include <boost/json/serialize.hpp>

namespace agentry::sqlite_store {
namespace json = boost::json;

void AuditRepository::append(core::AuditEvent& e) {
  e.cursor = RunRepository(c_).next_audit_cursor(e.run_id);
  auto s = c_.prepare("INSERT INTO audit_events (run_id, cursor, type, actor, at, data_json) VALUES (?,?,?,?,?,?)");
  s.bind(1, e.run_id).bind(2, e.cursor).bind(3, e.type).bind(4, e.actor).bind(5, e.at);
  s.bind(6, json::serialize(e.data));
  s.run();
}

std::vector<core::AuditEvent> AuditRepository::list(std::string_view run_id, const core::EventPageQuery& q) {
  auto s = c_.prepare(q.newest ? "SELECT cursor, type, actor, at, data_json FROM audit_events "
                                "WHERE run_id = ? AND cursor > ? AND cursor <= ? ORDER BY cursor DESC LIMIT ?"
                              : "SELECT cursor, type, actor, at, data_json FROM audit_events "
                                "WHERE run_id = ? AND cursor > ? AND cursor <= ? ORDER BY cursor LIMIT ?");
  s.bind(1, run_id).bind(2, q.after).bind(3, q.upto).bind(4, static_cast<std::int64_t>(q.limit));
  std::vector<core::AuditEvent> out;
  while (s.step()) {
    core::AuditEvent e;
    e.run_id = std::string(run_id);
    e.cursor = s.column_int64(0);
    e.type = s.column_text(1);
    e.actor = s.column_text(2);
    e.at = s.column_text(3);
    e.data = store::decode_payload(s.column_text(4));
    out.push_back(std::move(e));
  }
  if (q.newest) std::reverse(out.begin(), out.end());
  return out;
}

std::int64_t AuditRepository::last_cursor(std::string_view run_id) {
  auto s = c_.prepare("SELECT COALESCE(MAX(cursor), 0) FROM audit_events WHERE run_id = ?");
  s.bind(1, run_id);
  s.step();
  return s.column_int64(0);
}

namespace {

constexpr std::string_view insert_timeline_sql =
    "INSERT INTO timeline_events (run_id, cursor, kind, attempt_number, at, payload_json) VALUES (?,?,?,?,?,?)";

/// `insert` is the prepared insert_timeline_sql, reused across a batch.
void insert_timeline(Statement& insert, core::TimelineEvent& e) {
  if (e.payload_json.empty()) e.payload_json = json::serialize(e.payload);
  if (e.ephemeral) return;
  insert.bind_view(1, e.run_id).bind(2, e.cursor).bind_view(3, e.kind);
  if (e.attempt_number) insert.bind(4, *e.attempt_number); else insert.bind_null(4);
  insert.bind_view(5, e.at).bind_view(6, e.payload_json);
  insert.run();
  insert.reset();
}

}  // namespace

void TimelineRepository::append(core::TimelineEvent& e) {
  e.cursor = RunRepository(c_).next_timeline_cursor(e.run_id, 1);
  auto insert = c_.prepare(insert_timeline_sql);
  insert_timeline(insert, e);
  c_.commit_actions().publish_timeline(e.run_id, e.cursor - 1, {e});
}

void TimelineRepository::append_batch(const std::string& run_id, std::vector<core::TimelineEvent>& events) {
  std::int64_t durable = 0;
  for (const auto& e : events) durable += e.ephemeral ? 0 : 1;
  if (events.empty()) return;
  auto cursor = durable ? RunRepository(c_).next_timeline_cursor(run_id, durable) : last_cursor(run_id) + 1;
  const std::int64_t base = cursor - 1;
  auto insert = c_.prepare(insert_timeline_sql);
  for (auto& e : events) {
    e.run_id = run_id;
    e.cursor = e.ephemeral ? 0 : cursor++;
    insert_timeline(insert, e);
  }
  c_.commit_actions().publish_timeline(run_id, base, std::move(events));
}

std::vector<core::TimelineEvent> TimelineRepository::list(std::string_view run_id,
                                                          const core::EventPageQuery& q) {
  auto s = c_.prepare(q.newest ? "SELECT cursor, kind, attempt_number, at, payload_json FROM timeline_events "
                                "WHERE run_id = ? AND cursor > ? AND cursor <= ? ORDER BY cursor DESC LIMIT ?"
                              : "SELECT cursor, kind, attempt_number, at, payload_json FROM timeline_events "
                                "WHERE run_id = ? AND cursor > ? AND cursor <= ? ORDER BY cursor LIMIT ?");
  s.bind(1, run_id).bind(2, q.after).bind(3, q.upto).bind(4, static_cast<std::int64_t>(q.limit));
  std::vector<core::TimelineEvent> out;
  while (s.step()) {
    core::TimelineEvent e;
    e.run_id = std::string(run_id);
    e.cursor = s.column_int64(0);
    e.kind = s.column_text(1);
    if (!s.column_is_null(2)) e.attempt_number = s.column_int(2);
    e.at = s.column_text(3);
    e.payload_json = s.column_text(4);
    if (!q.stored_payload) e.payload = store::decode_payload(e.payload_json);
    out.push_back(std::move(e));
  }
  if (q.newest) std::reverse(out.begin(), out.end());
  return out;
}

std::optional<core::TimelineEvent> TimelineRepository::last_of_attempt(std::string_view run_id,
                                                                      std::string_view kind, int attempt_number) {
  auto s = c_.prepare("SELECT cursor, at, payload_json FROM timeline_events "
                     "WHERE run_id = ? AND kind = ? AND attempt_number = ? ORDER BY cursor DESC LIMIT 1");
  s.bind(1, run_id).bind(2, kind).bind(3, static_cast<std::int64_t>(attempt_number));
  if (!s.step()) return std::nullopt;
  core::TimelineEvent e;
  e.run_id = std::string(run_id);
  e.cursor = s.column_int64(0);
  e.kind = std::string(kind);
  e.attempt_number = attempt_number;
  e.at = s.column_text(1);
  e.payload = store::decode_payload(s.column_text(2));
  return e;
}

std::vector<core::TimelineEvent> TimelineRepository::last_of_attempts(std::string_view run_id,
                                                                      std::string_view kind, int first_attempt,
                                                                      int last_attempt, std::size_t limit) {
  auto s = c_.prepare("SELECT cursor, attempt_number, at, payload_json FROM timeline_events "
                     "WHERE run_id = ? AND kind = ? AND attempt_number >= ? AND attempt_number <= ? "
                     "ORDER BY cursor DESC LIMIT ?");
  s.bind(1, run_id).bind(2, kind).bind(3, static_cast<std::int64_t>(first_attempt));
  s.bind(4, static_cast<std::int64_t>(last_attempt)).bind(5, static_cast<std::int64_t>(limit));
  std::vector<core::TimelineEvent> out;
  while (s.step()) {
    core::TimelineEvent e;
    e.run_id = std::string(run_id);
    e.cursor = s.column_int64(0);
    e.kind = std::string(kind);
    e.attempt_number = s.column_int(1);
    e.at = s.column_text(2);
    e.payload = store::decode_payload(s.column_text(3));
    out.push_back(std::move(e));
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::int64_t TimelineRepository::last_cursor(std::string_view run_id) {
  // The last cursor ever assigned, even if reset deleted that event since.
  auto s = c_.prepare("SELECT COALESCE((SELECT next_timeline_cursor - 1 FROM runs WHERE id = ?), 0)");
  s.bind(1, run_id);
  s.step();
  return s.column_int64(0);
}

void TimelineRepository::remove_all(std::string_view run_id) {
  auto s = c_.prepare("DELETE FROM timeline_events WHERE run_id = ?");
  s.bind(1, run_id);
  s.run();
}

}  // namespace agentry::sqlite_store

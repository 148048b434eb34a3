#include "sqlite_store/repositories.hpp"
#include "store/payload_codec.hpp"
#include "store/timeline_batches.hpp"

#include <algorithm>

#include <boost/json/serialize.hpp>

namespace agentry::sqlite_store {
namespace json = boost::json;

void AuditRepository::append(core::AuditEvent& e) {
  e.cursor = RunRepository(c_).next_audit_cursor(e.run_id);
  auto s = c_.prepare("INSERT INTO audit_events (run_id, cursor, type, actor, at, data_json) VALUES (?,?,?,?,?,?)");
  const std::string data = json::serialize(e.data);
  // Text in place: `e` and `data` outlive the step.
  s.bind_view(1, e.run_id).bind(2, e.cursor).bind_view(3, e.type).bind_view(4, e.actor).bind_view(5, e.at);
  s.bind_view(6, data);
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

/// The rows of `events` (cursors assigned); see store/timeline_batches.hpp.
void insert_timeline(Connection& c, const std::vector<core::TimelineEvent>& events) {
  auto insert = c.prepare(
      "INSERT INTO timeline_batches (run_id, last_cursor, first_cursor, first_attempt, last_attempt, events) "
      "VALUES (?,?,?,?,?,?)");
  store::pack_timeline_rows(events, [&](const store::TimelineBatchRow& row) {
    insert.bind_view(1, events.front().run_id).bind(2, row.last_cursor).bind(3, row.first_cursor);
    if (row.first_attempt) insert.bind(4, *row.first_attempt); else insert.bind_null(4);
    if (row.last_attempt) insert.bind(5, *row.last_attempt); else insert.bind_null(5);
    insert.bind_view(6, row.events);
    insert.run();
    insert.reset();
  });
}

/// Steps `s` (columns: first_cursor, events) for the readers of store/timeline_batches.hpp.
store::NextStoredBatch rows_of(Statement& s) {
  return [&s](store::StoredBatch& row) {
    if (!s.step()) return false;
    row.first_cursor = s.column_int64(0);
    row.events = s.column_view(1);
    return true;
  };
}

}  // namespace

void TimelineRepository::append(core::TimelineEvent& e) {
  e.cursor = RunRepository(c_).next_timeline_cursor(e.run_id, 1);
  if (e.payload_text().empty()) e.payload_json = json::serialize(e.payload);
  if (!e.ephemeral) insert_timeline(c_, {e});
  c_.commit_actions().publish_timeline(e.run_id, e.cursor - 1, {e});
}

void TimelineRepository::append_batch(const std::string& run_id, std::vector<core::TimelineEvent>& events) {
  std::int64_t durable = 0;
  for (const auto& e : events) durable += e.ephemeral ? 0 : 1;
  if (events.empty()) return;
  auto cursor = durable ? RunRepository(c_).next_timeline_cursor(run_id, durable) : last_cursor(run_id) + 1;
  const std::int64_t base = cursor - 1;
  for (auto& e : events) {
    e.run_id = run_id;
    e.cursor = e.ephemeral ? 0 : cursor++;
    if (e.payload_text().empty()) e.payload_json = json::serialize(e.payload);
  }
  if (durable) insert_timeline(c_, events);
  c_.commit_actions().publish_timeline(run_id, base, std::move(events));
}

namespace {

/// The rows overlapping (q.after, q.upto]: every one holds at least one event of the
/// range, so `limit` rows are enough.
Statement page_rows(Connection& c, std::string_view run_id, const core::EventPageQuery& q) {
  auto s = c.prepare(q.newest ? "SELECT first_cursor, events FROM timeline_batches "
                               "WHERE run_id = ? AND last_cursor > ? AND first_cursor <= ? "
                               "ORDER BY last_cursor DESC LIMIT ?"
                             : "SELECT first_cursor, events FROM timeline_batches "
                               "WHERE run_id = ? AND last_cursor > ? AND first_cursor <= ? "
                               "ORDER BY last_cursor LIMIT ?");
  s.bind(1, run_id).bind(2, q.after).bind(3, q.upto).bind(4, static_cast<std::int64_t>(q.limit));
  return s;
}

}  // namespace

std::vector<core::TimelineEvent> TimelineRepository::list(std::string_view run_id,
                                                          const core::EventPageQuery& q) {
  auto s = page_rows(c_, run_id, q);
  return store::read_timeline_page(run_id, q, rows_of(s));
}

std::size_t TimelineRepository::visit(std::string_view run_id, std::int64_t after, std::int64_t upto,
                                       std::size_t limit, const core::TimelineEventVisitor& visit) {
  auto s = page_rows(c_, run_id, {.after = after, .limit = limit, .upto = upto});
  return store::visit_timeline_range(after, upto, limit, rows_of(s), visit);
}

std::optional<core::TimelineEvent> TimelineRepository::last_of_attempt(std::string_view run_id,
                                                                      std::string_view kind, int attempt_number) {
  auto found = last_of_attempts(run_id, kind, attempt_number, attempt_number, 1);
  if (found.empty()) return std::nullopt;
  return std::move(found.front());
}

std::vector<core::TimelineEvent> TimelineRepository::last_of_attempts(std::string_view run_id,
                                                                      std::string_view kind, int first_attempt,
                                                                      int last_attempt, std::size_t limit) {
  auto s = c_.prepare("SELECT first_cursor, events FROM timeline_batches "
                     "WHERE run_id = ? AND first_attempt <= ? AND last_attempt >= ? ORDER BY last_cursor DESC");
  s.bind(1, run_id).bind(2, static_cast<std::int64_t>(last_attempt)).bind(3, static_cast<std::int64_t>(first_attempt));
  return store::newest_of_kind(run_id, kind, first_attempt, last_attempt, limit, rows_of(s));
}

std::int64_t TimelineRepository::last_cursor(std::string_view run_id) {
  // The last cursor ever assigned, even if reset deleted that event since.
  auto s = c_.prepare("SELECT COALESCE((SELECT next_timeline_cursor - 1 FROM runs WHERE id = ?), 0)");
  s.bind(1, run_id);
  s.step();
  return s.column_int64(0);
}

void TimelineRepository::remove_all(std::string_view run_id) {
  auto s = c_.prepare("DELETE FROM timeline_batches WHERE run_id = ?");
  s.bind(1, run_id);
  s.run();
}

}  // namespace agentry::sqlite_store

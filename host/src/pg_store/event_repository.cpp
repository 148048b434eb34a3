#include "pg_store/repositories.hpp"
#include "store/payload_codec.hpp"

#include <algorithm>
#include <limits>

#include <boost/json/serialize.hpp>

namespace agentry::pg_store {
namespace json = boost::json;
namespace {

/// A LIMIT PostgreSQL accepts: it rejects a negative one, which a size_t too large for
/// bigint would become (SQLite takes that as no limit, as this does).
std::int64_t row_limit(std::size_t limit) {
  return static_cast<std::int64_t>(
      std::min<std::size_t>(limit, static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max())));
}

/// The page's statement: a newest page is read backwards, then reversed.
std::string page_sql(std::string_view select, const core::EventPageQuery& q) {
  return std::string(select) + " WHERE run_id = $1 AND cursor > $2 AND cursor <= $3 ORDER BY cursor" +
         (q.newest ? " DESC" : "") + " LIMIT $4";
}

std::vector<Param> page_params(std::string_view run_id, const core::EventPageQuery& q) {
  return {run_id, q.after, q.upto, row_limit(q.limit)};
}

}  // namespace

void AuditRepository::append(core::AuditEvent& e) {
  e.cursor = RunRepository(c_).next_audit_cursor(e.run_id);
  c_.query("INSERT INTO audit_events (run_id, cursor, type, actor, at, data_json) VALUES ($1,$2,$3,$4,$5,$6)",
           {e.run_id, e.cursor, e.type, e.actor, e.at, json::serialize(e.data)});
}

std::vector<core::AuditEvent> AuditRepository::list(std::string_view run_id, const core::EventPageQuery& q) {
  auto result = c_.query(page_sql("SELECT cursor, type, actor, at, data_json FROM audit_events", q),
                         page_params(run_id, q));
  std::vector<core::AuditEvent> out;
  out.reserve(static_cast<std::size_t>(result.rows()));
  for (int i = 0; i < result.rows(); ++i) {
    auto row = result.row(i);
    core::AuditEvent e;
    e.run_id = std::string(run_id);
    e.cursor = row[0].int64();
    e.type = row[1].text();
    e.actor = row[2].text();
    e.at = row[3].text();
    e.data = store::decode_payload(row[4].text());
    out.push_back(std::move(e));
  }
  if (q.newest) std::reverse(out.begin(), out.end());
  return out;
}

std::int64_t AuditRepository::last_cursor(std::string_view run_id) {
  return c_.query("SELECT COALESCE(MAX(cursor), 0) FROM audit_events WHERE run_id = $1", {run_id}).row(0)[0].int64();
}

namespace {

Param attempt_param(const std::optional<int>& attempt_number) {
  return attempt_number ? Param(*attempt_number) : Param(std::nullopt);
}

/// The durable events of `events`, numbered from `first`, in one statement: a batch is
/// one round trip to the server however many events it holds.
void insert_timeline(Connection& c, const std::string& run_id, std::int64_t first,
                     const std::vector<core::TimelineEvent>& events) {
  std::vector<std::string> kinds, attempts, ats, payloads;
  for (const auto& e : events) {
    if (e.ephemeral) continue;
    kinds.push_back(e.kind);
    attempts.push_back(e.attempt_number ? std::to_string(*e.attempt_number) : "");
    ats.push_back(e.at);
    payloads.push_back(e.payload_json);
  }
  if (kinds.empty()) return;
  c.query("INSERT INTO timeline_events (run_id, cursor, kind, attempt_number, at, payload_json) "
          "SELECT $1, $2::bigint + n - 1, kind, NULLIF(attempt, '')::bigint, at, payload "
          "FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) "
          "WITH ORDINALITY AS e(kind, attempt, at, payload, n)",
          {run_id, first, text_array(kinds), text_array(attempts), text_array(ats), text_array(payloads)});
}

}  // namespace

void TimelineRepository::append(core::TimelineEvent& e) {
  e.cursor = RunRepository(c_).next_timeline_cursor(e.run_id, 1);
  if (e.payload_json.empty()) e.payload_json = json::serialize(e.payload);
  if (!e.ephemeral) {
    c_.query("INSERT INTO timeline_events (run_id, cursor, kind, attempt_number, at, payload_json) "
             "VALUES ($1,$2,$3,$4,$5,$6)",
             {e.run_id, e.cursor, e.kind, attempt_param(e.attempt_number), e.at, e.payload_json});
  }
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
    if (e.payload_json.empty()) e.payload_json = json::serialize(e.payload);
  }
  insert_timeline(c_, run_id, base + 1, events);
  c_.commit_actions().publish_timeline(run_id, base, std::move(events));
}

std::vector<core::TimelineEvent> TimelineRepository::list(std::string_view run_id, const core::EventPageQuery& q) {
  auto result = c_.query(page_sql("SELECT cursor, kind, attempt_number, at, payload_json FROM timeline_events", q),
                         page_params(run_id, q));
  std::vector<core::TimelineEvent> out;
  out.reserve(static_cast<std::size_t>(result.rows()));
  for (int i = 0; i < result.rows(); ++i) {
    auto row = result.row(i);
    core::TimelineEvent e;
    e.run_id = std::string(run_id);
    e.cursor = row[0].int64();
    e.kind = row[1].text();
    if (!row[2].is_null()) e.attempt_number = static_cast<int>(row[2].int64());
    e.at = row[3].text();
    e.payload_json = row[4].text();
    if (!q.stored_payload) e.payload = store::decode_payload(e.payload_json);
    out.push_back(std::move(e));
  }
  if (q.newest) std::reverse(out.begin(), out.end());
  return out;
}

std::optional<core::TimelineEvent> TimelineRepository::last_of_attempt(std::string_view run_id,
                                                                      std::string_view kind, int attempt_number) {
  auto result = c_.query("SELECT cursor, at, payload_json FROM timeline_events "
                         "WHERE run_id = $1 AND kind = $2 AND attempt_number = $3 ORDER BY cursor DESC LIMIT 1",
                         {run_id, kind, attempt_number});
  if (result.rows() == 0) return std::nullopt;
  auto row = result.row(0);
  core::TimelineEvent e;
  e.run_id = std::string(run_id);
  e.cursor = row[0].int64();
  e.kind = std::string(kind);
  e.attempt_number = attempt_number;
  e.at = row[1].text();
  e.payload = store::decode_payload(row[2].text());
  return e;
}

std::vector<core::TimelineEvent> TimelineRepository::last_of_attempts(std::string_view run_id,
                                                                      std::string_view kind, int first_attempt,
                                                                      int last_attempt, std::size_t limit) {
  auto result = c_.query("SELECT cursor, attempt_number, at, payload_json FROM timeline_events "
                         "WHERE run_id = $1 AND kind = $2 AND attempt_number >= $3 AND attempt_number <= $4 "
                         "ORDER BY cursor DESC LIMIT $5",
                         {run_id, kind, first_attempt, last_attempt, row_limit(limit)});
  std::vector<core::TimelineEvent> out;
  out.reserve(static_cast<std::size_t>(result.rows()));
  for (int i = result.rows() - 1; i >= 0; --i) {
    auto row = result.row(i);
    core::TimelineEvent e;
    e.run_id = std::string(run_id);
    e.cursor = row[0].int64();
    e.kind = std::string(kind);
    e.attempt_number = static_cast<int>(row[1].int64());
    e.at = row[2].text();
    e.payload = store::decode_payload(row[3].text());
    out.push_back(std::move(e));
  }
  return out;
}

std::int64_t TimelineRepository::last_cursor(std::string_view run_id) {
  // The last cursor ever assigned, even if reset deleted that event since.
  return c_.query("SELECT COALESCE((SELECT next_timeline_cursor - 1 FROM runs WHERE id = $1), 0)", {run_id})
      .row(0)[0]
      .int64();
}

void TimelineRepository::remove_all(std::string_view run_id) {
  c_.query("DELETE FROM timeline_events WHERE run_id = $1", {run_id});
}

}  // namespace agentry::pg_store

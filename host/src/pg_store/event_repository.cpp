#include "pg_store/repositories.hpp"
#include "store/payload_codec.hpp"
#include "store/timeline_batches.hpp"

#include <algorithm>
#include <functional>
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

/// The rows of `events` (cursors assigned; see store/timeline_batches.hpp): a batch is
/// one row, and one round trip, unless it is long.
void insert_timeline(Connection& c, const std::vector<core::TimelineEvent>& events) {
  store::pack_timeline_rows(events, [&](const store::TimelineBatchRow& row) {
    c.query("INSERT INTO timeline_batches (run_id, last_cursor, first_cursor, first_attempt, last_attempt, events) "
            "VALUES ($1,$2,$3,$4,$5,$6)",
            {events.front().run_id, row.last_cursor, row.first_cursor, attempt_param(row.first_attempt),
             attempt_param(row.last_attempt), row.events});
  });
}

/// Rows (columns: first_cursor, last_cursor, events) fetched a few at a time: the readers
/// of store/timeline_batches.hpp stop as soon as they have their page, and a row can be
/// long. `fetch(bound)` runs the statement past `bound` (a cursor the next rows lie
/// beyond, or before when descending).
class RowsInChunks {
 public:
  RowsInChunks(bool descending, std::int64_t bound, std::function<Result(std::int64_t)> fetch)
      : descending_(descending), bound_(bound), fetch_(std::move(fetch)) {}

  store::NextStoredBatch next() {
    return [this](store::StoredBatch& row) {
      if (index_ == rows_ && !done_) {
        chunk_.emplace(fetch_(bound_));
        rows_ = chunk_->rows();
        index_ = 0;
        done_ = rows_ < chunk_rows;
      }
      if (index_ == rows_) return false;
      auto r = chunk_->row(index_++);
      row.first_cursor = r[0].int64();
      bound_ = descending_ ? row.first_cursor - 1 : r[1].int64();
      row.events = r[2].text_view();
      return true;
    };
  }

  static constexpr int chunk_rows = 8;

 private:
  bool descending_;
  std::int64_t bound_;
  std::function<Result(std::int64_t)> fetch_;
  std::optional<Result> chunk_;
  int rows_ = 0;
  int index_ = 0;
  bool done_ = false;
};

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

/// The rows overlapping (q.after, q.upto], in the page's order, a few at a time.
RowsInChunks page_rows(Connection& c, std::string_view run_id, const core::EventPageQuery& q) {
  return RowsInChunks(q.newest, q.newest ? q.upto : q.after, [&c, id = std::string(run_id), q](std::int64_t bound) {
    const auto limit = static_cast<std::int64_t>(RowsInChunks::chunk_rows);
    if (q.newest)
      return c.query("SELECT first_cursor, last_cursor, events FROM timeline_batches "
                     "WHERE run_id = $1 AND last_cursor > $2 AND first_cursor <= $3 "
                     "ORDER BY last_cursor DESC LIMIT $4",
                     {id, q.after, bound, limit});
    return c.query("SELECT first_cursor, last_cursor, events FROM timeline_batches "
                   "WHERE run_id = $1 AND last_cursor > $2 AND first_cursor <= $3 ORDER BY last_cursor LIMIT $4",
                   {id, bound, q.upto, limit});
  });
}

}  // namespace

std::vector<core::TimelineEvent> TimelineRepository::list(std::string_view run_id, const core::EventPageQuery& q) {
  auto rows = page_rows(c_, run_id, q);
  return store::read_timeline_page(run_id, q, rows.next());
}

std::size_t TimelineRepository::visit(std::string_view run_id, std::int64_t after, std::int64_t upto,
                                      std::size_t limit, const core::TimelineEventVisitor& visit) {
  auto rows = page_rows(c_, run_id, {.after = after, .limit = limit, .upto = upto});
  return store::visit_timeline_range(after, upto, limit, rows.next(), visit);
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
  const std::string id(run_id);
  RowsInChunks rows(true, std::numeric_limits<std::int64_t>::max(), [&](std::int64_t bound) {
    return c_.query("SELECT first_cursor, last_cursor, events FROM timeline_batches "
                    "WHERE run_id = $1 AND first_cursor <= $2 AND first_attempt <= $3 AND last_attempt >= $4 "
                    "ORDER BY last_cursor DESC LIMIT $5",
                    {id, bound, last_attempt, first_attempt, static_cast<std::int64_t>(RowsInChunks::chunk_rows)});
  });
  return store::newest_of_kind(run_id, kind, first_attempt, last_attempt, limit, rows.next());
}

std::int64_t TimelineRepository::last_cursor(std::string_view run_id) {
  // The last cursor ever assigned, even if reset deleted that event since.
  return c_.query("SELECT COALESCE((SELECT next_timeline_cursor - 1 FROM runs WHERE id = $1), 0)", {run_id})
      .row(0)[0]
      .int64();
}

void TimelineRepository::remove_all(std::string_view run_id) {
  c_.query("DELETE FROM timeline_batches WHERE run_id = $1", {run_id});
}

}  // namespace agentry::pg_store

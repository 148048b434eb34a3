// The timeline stored as one row per committed batch (store/timeline_batches.hpp), on
// every engine: long batches split into rows, pages cut inside rows, lookups by attempt
// across rows, and a damaged row shown as damaged.
#include "store/event_repository.hpp"

#include "store/run_repository.hpp"
#include "store/timeline_batches.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

namespace agentry::sqlite_store {
namespace {

using testing::make_run;
using testing::query_int;
using testing::read;
using testing::write;
using C = std::vector<std::int64_t>;

core::TimelineEvent event(const std::string& kind, std::optional<int> attempt, boost::json::object payload) {
  return core::TimelineEvent{"", 0, kind, attempt, "2024-01-01T00:00:00.000Z", std::move(payload), false, {}, {}};
}

C cursors_of(const std::vector<core::TimelineEvent>& events) {
  C out;
  for (const auto& e : events) out.push_back(e.cursor);
  return out;
}

C range(std::int64_t first, std::int64_t last) {
  C out;
  for (auto c = first; c <= last; ++c) out.push_back(c);
  return out;
}

class TimelineBatchesTest : public testing::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (IsSkipped()) return;
    write(db(), [](store::Transaction& c) { c.runs().insert(make_run("runA")); });
  }

  void append(std::vector<core::TimelineEvent> batch) {
    write(db(), [&](store::Transaction& c) { c.timeline().append_batch("runA", batch); });
  }
  std::vector<core::TimelineEvent> page(core::EventPageQuery q) {
    return read(db(), [&](store::Transaction& c) { return c.timeline().list("runA", q); });
  }
  std::int64_t rows() {
    return read(db(), [](store::Transaction& c) {
      return query_int(c, "SELECT count(*) FROM timeline_batches WHERE run_id = 'runA'");
    });
  }
};

AGENTRY_STORE_TEST_ON_EVERY_ENGINE(TimelineBatchesTest);

TEST_P(TimelineBatchesTest, ALongBatchIsSeveralRowsAndPagesCutAnywhereInThem) {
  std::vector<core::TimelineEvent> batch;
  const auto total = static_cast<std::int64_t>(2 * store::max_events_per_row + 100);
  for (std::int64_t n = 1; n <= total; ++n) batch.push_back(event("notice", 1, {{"n", n}, {"text", "ünï ✓"}}));
  batch[7].ephemeral = true;  // streamed, not stored: takes no cursor
  append(batch);
  EXPECT_EQ(rows(), 3);

  core::EventPageQuery q;
  q.after = 500;
  q.limit = 100;
  auto middle = page(q);
  EXPECT_EQ(cursors_of(middle), range(501, 600));  // across the first two rows
  EXPECT_EQ(middle.front().payload.at("text").as_string(), "ünï ✓");
  EXPECT_EQ(middle.front().attempt_number, std::optional<int>(1));
  EXPECT_EQ(middle.front().at, "2024-01-01T00:00:00.000Z");

  q = {};
  q.after = 510;
  q.upto = 515;
  EXPECT_EQ(cursors_of(page(q)), range(511, 515));

  q = {};
  q.newest = true;
  q.limit = 10;
  q.upto = 1030;
  EXPECT_EQ(cursors_of(page(q)), range(1021, 1030));  // the second and third rows

  q = {};
  q.limit = 100000;
  q.stored_payload = true;
  auto all = page(q);
  ASSERT_EQ(all.size(), static_cast<std::size_t>(total - 1));
  EXPECT_EQ(all.back().cursor, total - 1);
  EXPECT_TRUE(all.back().payload.empty());
  EXPECT_EQ(all.back().payload_json, R"({"n":)" + std::to_string(total) + R"(,"text":"ünï ✓"})");
}

TEST_P(TimelineBatchesTest, VisitingARangeGivesWhatAPageOfStoredPayloadsHolds) {
  std::vector<core::TimelineEvent> batch;
  const auto total = static_cast<std::int64_t>(store::max_events_per_row + 40);
  for (std::int64_t n = 1; n <= total; ++n)
    batch.push_back(event(n % 2 ? "notice" : "message.completed", n % 3 ? std::optional<int>(2) : std::nullopt,
                          {{"n", n}, {"text", "ünï \"✓\""}}));
  append(batch);
  append({event("notice", 3, {{"n", total + 1}})});
  struct Seen {
    std::int64_t cursor;
    std::string kind, at, payload;
    std::optional<int> attempt;
    bool operator==(const Seen&) const = default;
  };
  auto visit = [&](std::int64_t after, std::int64_t upto, std::size_t limit) {
    std::vector<Seen> seen;
    const auto count = read(db(), [&](store::Transaction& c) {
      return c.timeline().visit("runA", after, upto, limit, [&](const core::TimelineEventView& e) {
        seen.push_back({e.cursor, std::string(e.kind), std::string(e.at), std::string(e.payload_json), e.attempt_number});
      });
    });
    EXPECT_EQ(count, seen.size());
    return seen;
  };
  auto listed = [&](std::int64_t after, std::int64_t upto, std::size_t limit) {
    std::vector<Seen> out;
    for (const auto& e : page({.after = after, .limit = limit, .upto = upto, .stored_payload = true}))
      out.push_back({e.cursor, e.kind, std::string(e.at), e.payload_json, e.attempt_number});
    return out;
  };
  // Inside a row, across the row boundary into the next commit's, cut by the limit, by
  // `upto`, and past the end.
  for (auto [after, upto, limit] : {std::tuple<std::int64_t, std::int64_t, std::size_t>{0, 10, 100},
                                    {505, total + 1, 100},
                                    {100, total, 7},
                                    {0, total + 1, 100000},
                                    {total + 1, total + 50, 10}}) {
    SCOPED_TRACE(std::to_string(after) + ".." + std::to_string(upto) + " limit " + std::to_string(limit));
    EXPECT_EQ(visit(after, upto, limit), listed(after, upto, limit));
  }
  EXPECT_EQ(visit(0, total + 1, 100000).size(), static_cast<std::size_t>(total + 1));
  EXPECT_TRUE(visit(total + 1, total + 50, 10).empty());
  const auto first = visit(0, 1, 1);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].payload, R"({"n":1,"text":"ünï \"✓\""})");
  EXPECT_EQ(first[0].attempt, std::optional<int>(2));
}

TEST_P(TimelineBatchesTest, LookupsByAttemptFindTheNewestAcrossRows) {
  append({event("message.completed", 1, {{"n", 1}}), event("notice", {}, {}), event("message.completed", 2, {{"n", 2}})});
  append({event("message.completed", 2, {{"n", 3}}), event("message.completed", 3, {{"n", 4}})});
  append({event("notice", 3, {})});

  auto last = read(db(), [](store::Transaction& c) { return c.timeline().last_of_attempt("runA", "message.completed", 2); });
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->cursor, 4);
  EXPECT_EQ(last->payload.at("n").as_int64(), 3);

  auto some = read(db(), [](store::Transaction& c) {
    return c.timeline().last_of_attempts("runA", "message.completed", 1, 2, 2);
  });
  EXPECT_EQ(cursors_of(some), (C{3, 4}));
  auto every = read(db(), [](store::Transaction& c) {
    return c.timeline().last_of_attempts("runA", "message.completed", 1, 3, 10);
  });
  EXPECT_EQ(cursors_of(every), (C{1, 3, 4, 5}));
  EXPECT_FALSE(read(db(), [](store::Transaction& c) { return c.timeline().last_of_attempt("runA", "notice", 1); }));
}

TEST_P(TimelineBatchesTest, ADamagedRowIsShownAsDamagedAndTheOthersStillRead) {
  append({event("notice", 1, {{"n", 1}}), event("notice", 1, {{"n", 2}})});
  append({event("notice", 1, {{"n", 3}})});
  write(db(), [](store::Transaction& c) {
    query_int(c, "UPDATE timeline_batches SET events = '6:notice2' WHERE last_cursor = 2 RETURNING 1");
  });
  auto events = page({});
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].cursor, 1);
  EXPECT_EQ(events[0].kind, "timeline.damaged");
  EXPECT_TRUE(events[0].payload.contains("damaged"));
  EXPECT_EQ(events[1].cursor, 3);
  EXPECT_EQ(events[1].payload.at("n").as_int64(), 3);
}

TEST(TimelineBatchPacking, IsLengthPrefixedSoAnyPayloadRoundTrips) {
  auto e = event("kïnd", 12, {});
  e.cursor = 7;
  e.payload_json = "{\"a\":\"1:2;3\"}\n";
  auto rows = store::pack_timeline_rows({e});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].events, "5:kïnd24:2024-01-01T00:00:00.000Z12;14:{\"a\":\"1:2;3\"}\n");
  EXPECT_EQ(rows[0].first_cursor, 7);
  EXPECT_EQ(rows[0].last_cursor, 7);
  EXPECT_EQ(rows[0].first_attempt, std::optional<int>(12));

  core::EventPageQuery q;
  q.stored_payload = true;
  const std::string stored = rows[0].events;
  bool given = false;
  auto page = store::read_timeline_page("r", q, [&](store::StoredBatch& row) {
    if (given) return false;
    given = true;
    row = {7, stored};
    return true;
  });
  ASSERT_EQ(page.size(), 1u);
  EXPECT_EQ(page[0].kind, "kïnd");
  EXPECT_EQ(page[0].payload_json, e.payload_json);
  EXPECT_EQ(page[0].attempt_number, std::optional<int>(12));
}

}  // namespace
}  // namespace agentry::sqlite_store

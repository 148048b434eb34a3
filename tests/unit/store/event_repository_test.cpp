#include "store/event_repository.hpp"

#include "store/run_repository.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace agentry::sqlite_store {
namespace {

using testing::make_run;
using testing::query_int;
using testing::read;
using testing::write;

core::AuditEvent audit(const std::string& run_id, const std::string& type, boost::json::object data = {}) {
  return core::AuditEvent{run_id, 0, type, "api", "2024-01-01T00:00:00.000Z", std::move(data)};
}

core::TimelineEvent timeline(const std::string& run_id, const std::string& kind, std::optional<int> attempt = {},
                             boost::json::object payload = {}) {
  return core::TimelineEvent{run_id, 0, kind, attempt, "2024-01-01T00:00:00.000Z", std::move(payload), false, {}, {}};
}

std::vector<std::int64_t> cursors_of(const auto& events) {
  std::vector<std::int64_t> out;
  for (const auto& e : events) out.push_back(e.cursor);
  return out;
}

class EventRepositoryTest : public testing::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (IsSkipped()) return;
    write(db(), [](store::Transaction& c) {
      for (const char* id : {"runA", "runB"}) c.runs().insert(make_run(id));
    });
  }

  std::int64_t append_audit(const std::string& run_id, const std::string& type = "run.updated") {
    auto e = audit(run_id, type);
    write(db(), [&](store::Transaction& c) { c.audit().append(e); });
    return e.cursor;
  }
  std::int64_t append_timeline(const std::string& run_id, const std::string& kind = "message") {
    auto e = timeline(run_id, kind);
    write(db(), [&](store::Transaction& c) { c.timeline().append(e); });
    return e.cursor;
  }
  std::vector<core::AuditEvent> audits(const std::string& run_id, core::EventPageQuery q = {}) {
    return read(db(), [&](store::Transaction& c) { return c.audit().list(run_id, q); });
  }
  std::vector<core::TimelineEvent> events(const std::string& run_id, core::EventPageQuery q = {}) {
    return read(db(), [&](store::Transaction& c) { return c.timeline().list(run_id, q); });
  }

  using C = std::vector<std::int64_t>;
};

AGENTRY_STORE_TEST_ON_EVERY_ENGINE(EventRepositoryTest);

TEST_P(EventRepositoryTest, AuditCursorsStartAtOneAndAreIndependentPerRun) {
  EXPECT_EQ(append_audit("runA"), 1);
  EXPECT_EQ(append_audit("runA"), 2);
  EXPECT_EQ(append_audit("runB"), 1);
  EXPECT_EQ(append_audit("runA"), 3);
  EXPECT_EQ(append_audit("runB"), 2);
  EXPECT_EQ(cursors_of(audits("runA")), (C{1, 2, 3}));
  EXPECT_EQ(cursors_of(audits("runB")), (C{1, 2}));
  EXPECT_EQ(read(db(), [](store::Transaction& c) { return c.audit().last_cursor("runA"); }), 3);
  EXPECT_EQ(read(db(), [](store::Transaction& c) { return c.audit().last_cursor("runB"); }), 2);
}

TEST_P(EventRepositoryTest, AuditEventsKeepEveryField) {
  auto e = audit("runA", "task.status_changed", {{"taskId", "t1"}, {"from", "pending"}, {"to", "completed"}});
  e.actor = "engine";
  e.at = "2024-06-06T06:06:06.606Z";
  write(db(), [&](store::Transaction& c) { c.audit().append(e); });
  const auto listed = audits("runA");
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].run_id, "runA");
  EXPECT_EQ(listed[0].cursor, e.cursor);
  EXPECT_EQ(listed[0].type, "task.status_changed");
  EXPECT_EQ(listed[0].actor, "engine");
  EXPECT_EQ(listed[0].at, "2024-06-06T06:06:06.606Z");
  EXPECT_EQ(listed[0].data, e.data);
}

TEST_P(EventRepositoryTest, ListingHonoursAfterAndLimit) {
  for (int i = 0; i < 10; ++i) {
    append_audit("runA");
    append_timeline("runA");
  }
  EXPECT_EQ(cursors_of(audits("runA", {3, 4})), (C{4, 5, 6, 7}));
  EXPECT_EQ(cursors_of(events("runA", {3, 4})), (C{4, 5, 6, 7}));
  EXPECT_EQ(cursors_of(audits("runA", {8, 100})), (C{9, 10}));
  EXPECT_EQ(cursors_of(events("runA", {0, 2})), (C{1, 2}));
  EXPECT_TRUE(audits("runA", {10, 100}).empty());
  EXPECT_TRUE(events("runA", {10, 100}).empty());
  EXPECT_EQ(audits("runA").size(), 10u);
  EXPECT_TRUE(audits("runB").empty());
  EXPECT_EQ(read(db(), [](store::Transaction& c) { return c.audit().last_cursor("runB"); }), 0);
}

TEST_P(EventRepositoryTest, TimelineEventsKeepEveryField) {
  auto with_attempt = timeline("runA", "tool_call", 3, {{"name", "bash"}, {"args", boost::json::array{"ls", "-l"}}});
  auto without_attempt = timeline("runA", "session.started");
  write(db(), [&](store::Transaction& c) {
    c.timeline().append(with_attempt);
    c.timeline().append(without_attempt);
  });
  const auto listed = events("runA");
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].run_id, "runA");
  EXPECT_EQ(listed[0].cursor, 1);
  EXPECT_EQ(listed[0].kind, "tool_call");
  EXPECT_EQ(listed[0].attempt_number, std::optional<int>(3));
  EXPECT_EQ(listed[0].payload, with_attempt.payload);
  EXPECT_EQ(listed[1].cursor, 2);
  EXPECT_EQ(listed[1].kind, "session.started");
  EXPECT_FALSE(listed[1].attempt_number.has_value());
  EXPECT_TRUE(listed[1].payload.empty());
}

TEST_P(EventRepositoryTest, TimelineNumberingContinuesAfterRemoveAll) {
  for (int i = 0; i < 3; ++i) append_timeline("runA");
  append_timeline("runB");
  write(db(), [](store::Transaction& c) { c.timeline().remove_all("runA"); });
  EXPECT_TRUE(events("runA").empty());
  EXPECT_EQ(cursors_of(events("runB")), (C{1}));
  // Cursors are never reused: a client holding cursor 3 must not miss the next event.
  EXPECT_EQ(append_timeline("runA"), 4);
  EXPECT_EQ(append_timeline("runA"), 5);
  EXPECT_EQ(cursors_of(events("runA")), (C{4, 5}));
  EXPECT_EQ(cursors_of(events("runA", {3, 10})), (C{4, 5}));
  EXPECT_EQ(append_timeline("runB"), 2);
}

TEST_P(EventRepositoryTest, ReservingSeveralTimelineCursorsSkipsPastThem) {
  std::int64_t first = 0;
  write(db(), [&](store::Transaction& c) { first = c.runs().next_timeline_cursor("runA", 5); });
  EXPECT_EQ(first, 1);
  EXPECT_EQ(append_timeline("runA"), 6);
}

TEST_P(EventRepositoryTest, CursorsSurviveReopening) {
  append_audit("runA");
  append_timeline("runA");
  append_timeline("runA");
  write(db(), [](store::Transaction& c) { c.timeline().remove_all("runA"); });
  reopen();
  EXPECT_EQ(append_audit("runA"), 2);
  EXPECT_EQ(append_timeline("runA"), 3);
}

TEST_P(EventRepositoryTest, AppendingToAMissingRunFailsAndStoresNothing) {
  EXPECT_THROW(append_audit("ghost"), std::runtime_error);
  EXPECT_THROW(append_timeline("ghost"), std::runtime_error);
  EXPECT_TRUE(audits("ghost").empty());
  EXPECT_TRUE(events("ghost").empty());
}

TEST_P(EventRepositoryTest, ConcurrentAppendsGetDistinctConsecutiveCursors) {
  constexpr int threads = 8, per_thread = 25;
  std::mutex mutex;
  std::vector<std::int64_t> cursors;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&] {
      for (int i = 0; i < per_thread; ++i) {
        auto cursor = db().write<std::int64_t>([](store::Transaction& c) -> core::Result<std::int64_t> {
          auto e = audit("runA", "concurrent");
          c.audit().append(e);
          return e.cursor;
        });
        std::lock_guard lock(mutex);
        cursors.push_back(cursor.ok() ? *cursor : -1);
      }
    });
  for (auto& w : workers) w.join();
  std::sort(cursors.begin(), cursors.end());
  C expected(threads * per_thread);
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = static_cast<std::int64_t>(i + 1);
  EXPECT_EQ(cursors, expected);
  EXPECT_EQ(cursors_of(audits("runA")), expected);
}

/// What the timeline listener heard: each call's run, base and events.
struct Heard {
  std::string run_id;
  std::int64_t base;
  std::vector<core::TimelineEvent> events;
};

TEST_P(EventRepositoryTest, ABatchStoresItsDurableEventsAndPublishesAllAfterCommit) {
  std::vector<Heard> heard;
  db().set_timeline_listener([&](const std::string& run_id, std::int64_t base, std::vector<core::TimelineEvent>&& e) {
    heard.push_back({run_id, base, std::move(e)});
  });
  append_timeline("runA");
  std::vector<core::TimelineEvent> batch{timeline("", "tool_call", 2, {{"n", 1}}), timeline("", "delta"),
                                         timeline("", "message"), timeline("", "tool_call", 7, {{"n", 3}})};
  batch[1].ephemeral = true;
  const auto last_payload = batch[3].payload;
  write(db(), [&](store::Transaction& c) { c.timeline().append_batch("runA", batch); });
  ASSERT_EQ(heard.size(), 2u);
  EXPECT_EQ(heard[1].run_id, "runA");
  EXPECT_EQ(heard[1].base, 1);
  EXPECT_EQ(cursors_of(heard[1].events), (C{2, 0, 3, 4}));
  EXPECT_EQ(heard[1].events[0].payload_json, R"({"n":1})");
  const auto stored = events("runA");
  EXPECT_EQ(cursors_of(stored), (C{1, 2, 3, 4}));
  EXPECT_EQ(stored[1].attempt_number, std::optional<int>(2));
  EXPECT_EQ(stored[2].kind, "message");
  EXPECT_FALSE(stored[2].attempt_number.has_value());
  EXPECT_EQ(stored[3].attempt_number, std::optional<int>(7));
  EXPECT_EQ(stored[3].payload, last_payload);

  // Only ephemeral events: none stored, no cursor used, still published.
  std::vector<core::TimelineEvent> deltas{timeline("", "delta"), timeline("", "delta")};
  for (auto& e : deltas) e.ephemeral = true;
  write(db(), [&](store::Transaction& c) { c.timeline().append_batch("runA", deltas); });
  ASSERT_EQ(heard.size(), 3u);
  EXPECT_EQ(heard[2].base, 4);
  EXPECT_EQ(cursors_of(heard[2].events), (C{0, 0}));
  EXPECT_EQ(append_timeline("runA"), 5);
}

TEST_P(EventRepositoryTest, AFailedWritePublishesNothingAndGivesBackItsCursors) {
  int calls = 0;
  db().set_timeline_listener([&](const std::string&, std::int64_t, std::vector<core::TimelineEvent>&&) { ++calls; });
  auto failed = db().write<bool>([](store::Transaction& c) -> core::Result<bool> {
    auto e = timeline("runA", "message");
    c.timeline().append(e);
    auto a = audit("runA", "run.updated");
    c.audit().append(a);
    auto lost = audit("ghost", "run.updated");
    c.audit().append(lost);  // throws: the whole job rolls back to its savepoint
    return true;
  });
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(calls, 0);
  EXPECT_TRUE(events("runA").empty());
  EXPECT_EQ(append_timeline("runA"), 1);
  EXPECT_EQ(append_audit("runA"), 1);
  EXPECT_EQ(calls, 1);
}

TEST_P(EventRepositoryTest, LastOfAttemptsFindsTheNewestOfAKind) {
  std::vector<core::TimelineEvent> batch;
  for (int attempt : {1, 1, 2, 3, 3, 4}) batch.push_back(timeline("", "message.completed", attempt, {{"a", attempt}}));
  batch.push_back(timeline("", "other", 3));
  write(db(), [&](store::Transaction& c) { c.timeline().append_batch("runA", batch); });
  auto last = read(db(), [](store::Transaction& c) {
    return c.timeline().last_of_attempt("runA", "message.completed", 3);
  });
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->cursor, 5);
  EXPECT_EQ(last->payload, (boost::json::object{{"a", 3}}));
  EXPECT_FALSE(read(db(), [](store::Transaction& c) {
                 return c.timeline().last_of_attempt("runA", "message.completed", 9);
               }).has_value());
  auto range = read(db(), [](store::Transaction& c) {
    return c.timeline().last_of_attempts("runA", "message.completed", 1, 3, 3);
  });
  EXPECT_EQ(cursors_of(range), (C{3, 4, 5}));
  EXPECT_EQ(range.front().attempt_number, std::optional<int>(2));
}

TEST_P(EventRepositoryTest, AnUnreadablePayloadIsShownDamaged) {
  append_timeline("runA");
  append_audit("runA");
  write(db(), [](store::Transaction& c) {
    // The stored event, packed as store/timeline_batches.hpp says, with a payload cut short.
    query_int(c, "UPDATE timeline_batches SET events = '7:message24:2024-01-01T00:00:00.000Z;5:{oops' "
                 "WHERE run_id = 'runA' RETURNING 1");
    query_int(c, "UPDATE audit_events SET data_json = '[1' WHERE run_id = 'runA' RETURNING 1");
  });
  EXPECT_TRUE(events("runA").at(0).payload.contains("damaged"));
  EXPECT_TRUE(audits("runA").at(0).data.contains("damaged"));
  core::EventPageQuery stored;
  stored.stored_payload = true;
  const auto raw = events("runA", stored).at(0);
  EXPECT_EQ(raw.payload_json, "{oops");  // live streams get the text as it is
  EXPECT_TRUE(raw.payload.empty());
}

TEST_P(EventRepositoryTest, TheNewestPageIsTheEndOfTheRangeInCursorOrder) {
  for (int i = 0; i < 6; ++i) {
    append_audit("runA");
    append_timeline("runA");
  }
  core::EventPageQuery q;
  q.newest = true;
  q.limit = 2;
  q.upto = 5;
  EXPECT_EQ(cursors_of(audits("runA", q)), (C{4, 5}));
  EXPECT_EQ(cursors_of(events("runA", q)), (C{4, 5}));
}

}  // namespace
}  // namespace agentry::sqlite_store

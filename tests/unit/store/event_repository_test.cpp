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
using testing::open_database;
using testing::read;
using testing::TempDir;
using testing::write;

core::AuditEvent audit(const std::string& run_id, const std::string& type, boost::json::object data = {}) {
  return core::AuditEvent{run_id, 0, type, "api", "2024-01-01T00:00:00.000Z", std::move(data)};
}

core::TimelineEvent timeline(const std::string& run_id, const std::string& kind, std::optional<int> attempt = {},
                             boost::json::object payload = {}) {
  return core::TimelineEvent{run_id, 0, kind, attempt, "2024-01-01T00:00:00.000Z", std::move(payload), false, {}};
}

std::vector<std::int64_t> cursors_of(const auto& events) {
  std::vector<std::int64_t> out;
  for (const auto& e : events) out.push_back(e.cursor);
  return out;
}

class EventRepositoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = open_database(path());
    write(*db_, [](store::Transaction& c) {
      for (const char* id : {"runA", "runB"}) c.runs().insert(make_run(id));
    });
  }

  std::filesystem::path path() const { return dir_.path() / "agentry.db"; }

  std::int64_t append_audit(const std::string& run_id, const std::string& type = "run.updated") {
    auto e = audit(run_id, type);
    write(*db_, [&](store::Transaction& c) { c.audit().append(e); });
    return e.cursor;
  }
  std::int64_t append_timeline(const std::string& run_id, const std::string& kind = "message") {
    auto e = timeline(run_id, kind);
    write(*db_, [&](store::Transaction& c) { c.timeline().append(e); });
    return e.cursor;
  }
  std::vector<core::AuditEvent> audits(const std::string& run_id, core::EventPageQuery q = {}) {
    return read(*db_, [&](store::Transaction& c) { return c.audit().list(run_id, q); });
  }
  std::vector<core::TimelineEvent> events(const std::string& run_id, core::EventPageQuery q = {}) {
    return read(*db_, [&](store::Transaction& c) { return c.timeline().list(run_id, q); });
  }

  using C = std::vector<std::int64_t>;
  TempDir dir_;
  std::unique_ptr<SqliteStore> db_;
};

TEST_F(EventRepositoryTest, AuditCursorsStartAtOneAndAreIndependentPerRun) {
  EXPECT_EQ(append_audit("runA"), 1);
  EXPECT_EQ(append_audit("runA"), 2);
  EXPECT_EQ(append_audit("runB"), 1);
  EXPECT_EQ(append_audit("runA"), 3);
  EXPECT_EQ(append_audit("runB"), 2);
  EXPECT_EQ(cursors_of(audits("runA")), (C{1, 2, 3}));
  EXPECT_EQ(cursors_of(audits("runB")), (C{1, 2}));
  EXPECT_EQ(read(*db_, [](store::Transaction& c) { return c.audit().last_cursor("runA"); }), 3);
  EXPECT_EQ(read(*db_, [](store::Transaction& c) { return c.audit().last_cursor("runB"); }), 2);
}

TEST_F(EventRepositoryTest, AuditEventsKeepEveryField) {
  auto e = audit("runA", "task.status_changed", {{"taskId", "t1"}, {"from", "pending"}, {"to", "completed"}});
  e.actor = "engine";
  e.at = "2024-06-06T06:06:06.606Z";
  write(*db_, [&](store::Transaction& c) { c.audit().append(e); });
  const auto listed = audits("runA");
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].run_id, "runA");
  EXPECT_EQ(listed[0].cursor, e.cursor);
  EXPECT_EQ(listed[0].type, "task.status_changed");
  EXPECT_EQ(listed[0].actor, "engine");
  EXPECT_EQ(listed[0].at, "2024-06-06T06:06:06.606Z");
  EXPECT_EQ(listed[0].data, e.data);
}

TEST_F(EventRepositoryTest, ListingHonoursAfterAndLimit) {
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
  EXPECT_EQ(read(*db_, [](store::Transaction& c) { return c.audit().last_cursor("runB"); }), 0);
}

TEST_F(EventRepositoryTest, TimelineEventsKeepEveryField) {
  auto with_attempt = timeline("runA", "tool_call", 3, {{"name", "bash"}, {"args", boost::json::array{"ls", "-l"}}});
  auto without_attempt = timeline("runA", "session.started");
  write(*db_, [&](store::Transaction& c) {
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

TEST_F(EventRepositoryTest, TimelineNumberingContinuesAfterRemoveAll) {
  for (int i = 0; i < 3; ++i) append_timeline("runA");
  append_timeline("runB");
  write(*db_, [](store::Transaction& c) { c.timeline().remove_all("runA"); });
  EXPECT_TRUE(events("runA").empty());
  EXPECT_EQ(cursors_of(events("runB")), (C{1}));
  // Cursors are never reused: a client holding cursor 3 must not miss the next event.
  EXPECT_EQ(append_timeline("runA"), 4);
  EXPECT_EQ(append_timeline("runA"), 5);
  EXPECT_EQ(cursors_of(events("runA")), (C{4, 5}));
  EXPECT_EQ(cursors_of(events("runA", {3, 10})), (C{4, 5}));
  EXPECT_EQ(append_timeline("runB"), 2);
}

TEST_F(EventRepositoryTest, ReservingSeveralTimelineCursorsSkipsPastThem) {
  std::int64_t first = 0;
  write(*db_, [&](store::Transaction& c) { first = c.runs().next_timeline_cursor("runA", 5); });
  EXPECT_EQ(first, 1);
  EXPECT_EQ(append_timeline("runA"), 6);
}

TEST_F(EventRepositoryTest, CursorsSurviveReopening) {
  append_audit("runA");
  append_timeline("runA");
  append_timeline("runA");
  write(*db_, [](store::Transaction& c) { c.timeline().remove_all("runA"); });
  db_.reset();
  db_ = open_database(path());
  EXPECT_EQ(append_audit("runA"), 2);
  EXPECT_EQ(append_timeline("runA"), 3);
}

TEST_F(EventRepositoryTest, AppendingToAMissingRunFailsAndStoresNothing) {
  EXPECT_THROW(append_audit("ghost"), std::runtime_error);
  EXPECT_THROW(append_timeline("ghost"), std::runtime_error);
  EXPECT_TRUE(audits("ghost").empty());
  EXPECT_TRUE(events("ghost").empty());
}

TEST_F(EventRepositoryTest, ConcurrentAppendsGetDistinctConsecutiveCursors) {
  constexpr int threads = 8, per_thread = 25;
  std::mutex mutex;
  std::vector<std::int64_t> cursors;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&] {
      for (int i = 0; i < per_thread; ++i) {
        auto cursor = db_->write<std::int64_t>([](store::Transaction& c) -> core::Result<std::int64_t> {
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

}  // namespace
}  // namespace agentry::sqlite_store

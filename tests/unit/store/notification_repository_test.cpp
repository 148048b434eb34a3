#include "store/notification_repository.hpp"

#include "store/run_repository.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

namespace agentry::sqlite_store {
namespace {

using testing::make_run;
using testing::read;
using testing::write;

OutboxEntry make_entry(const std::string& run_id, const std::string& key, int target, std::int64_t due) {
  OutboxEntry e;
  e.run_id = run_id;
  e.event = "run.finished";
  e.idempotency_key = key;
  e.target_index = target;
  e.target_json = R"({"webhook":"http://h/"})";
  e.payload_json = R"({"event":"run.finished"})";
  e.next_attempt_ms = due;
  e.created_at = e.updated_at = "2024-01-01T00:00:00.000Z";
  return e;
}

class NotificationRepositoryTest : public testing::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (IsSkipped()) return;
    write(db(), [](store::Transaction& c) { c.runs().insert(make_run("runA")); });
  }
};

AGENTRY_STORE_TEST_ON_EVERY_ENGINE(NotificationRepositoryTest);

TEST_P(NotificationRepositoryTest, AnEventIsQueuedOncePerTarget) {
  std::vector<bool> results;
  write(db(), [&](store::Transaction& c) {
    results.push_back(c.outbox().insert(make_entry("runA", "k1", 0, 100)));
    results.push_back(c.outbox().insert(make_entry("runA", "k1", 1, 100)));
    results.push_back(c.outbox().insert(make_entry("runA", "k1", 0, 100)));  // the same again
  });
  EXPECT_EQ(results, (std::vector<bool>{true, true, false}));
  EXPECT_EQ(read(db(), [](store::Transaction& c) { return c.outbox().list_for_run("runA"); }).size(), 2u);
}

TEST_P(NotificationRepositoryTest, OnlyPendingDueRowsAreDueOldestFirst) {
  write(db(), [&](store::Transaction& c) {
    c.outbox().insert(make_entry("runA", "late", 0, 500));
    c.outbox().insert(make_entry("runA", "early", 0, 100));
    c.outbox().insert(make_entry("runA", "done", 0, 50));
  });
  write(db(), [&](store::Transaction& c) {
    auto rows = c.outbox().list_for_run("runA");
    rows[2].state = "delivered";
    c.outbox().update(rows[2]);
  });
  auto due = read(db(), [](store::Transaction& c) { return c.outbox().due(200, 10); });
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].idempotency_key, "early");
  EXPECT_EQ(read(db(), [](store::Transaction& c) { return c.outbox().next_due(); }), std::optional<std::int64_t>(100));
  EXPECT_EQ(read(db(), [](store::Transaction& c) { return c.outbox().due(1000, 10); }).size(), 2u);
}

TEST_P(NotificationRepositoryTest, AttemptsAreRecordedAndDeletingTheRunDropsItsRows) {
  write(db(), [&](store::Transaction& c) { c.outbox().insert(make_entry("runA", "k", 0, 100)); });
  write(db(), [&](store::Transaction& c) {
    auto e = c.outbox().list_for_run("runA").at(0);
    e.attempts = 2;
    e.last_error = "HTTP 500";
    e.next_attempt_ms = 9000;
    c.outbox().update(e);
  });
  auto e = read(db(), [](store::Transaction& c) { return c.outbox().list_for_run("runA"); }).at(0);
  EXPECT_EQ(e.attempts, 2);
  EXPECT_EQ(e.last_error, "HTTP 500");
  EXPECT_EQ(e.state, "pending");
  EXPECT_EQ(e.next_attempt_ms, 9000);
  write(db(), [](store::Transaction& c) { c.runs().remove("runA"); });
  EXPECT_TRUE(read(db(), [](store::Transaction& c) { return c.outbox().list_for_run("runA"); }).empty());
}

TEST_P(NotificationRepositoryTest, DueIsOrderedByDueTimeThenQueueOrderAndLimited) {
  write(db(), [&](store::Transaction& c) {
    c.outbox().insert(make_entry("runA", "second", 0, 100));
    c.outbox().insert(make_entry("runA", "third", 0, 100));
    c.outbox().insert(make_entry("runA", "first", 0, 50));
  });
  auto due = read(db(), [](store::Transaction& c) { return c.outbox().due(100, 10); });
  ASSERT_EQ(due.size(), 3u);
  EXPECT_EQ(due[0].idempotency_key, "first");
  EXPECT_EQ(due[1].idempotency_key, "second");
  EXPECT_EQ(due[2].idempotency_key, "third");
  EXPECT_LT(due[1].id, due[2].id);
  auto limited = read(db(), [](store::Transaction& c) { return c.outbox().due(100, 2); });
  ASSERT_EQ(limited.size(), 2u);
  EXPECT_EQ(limited[1].idempotency_key, "second");
}

TEST_P(NotificationRepositoryTest, GetReturnsEveryFieldAndNothingForAnUnknownId) {
  OutboxEntry e = make_entry("runA", "k", 3, 1234);
  e.attempts = 1;
  e.last_error = "timeout";
  write(db(), [&](store::Transaction& c) { c.outbox().insert(e); });
  auto id = read(db(), [](store::Transaction& c) { return c.outbox().list_for_run("runA"); }).at(0).id;
  write(db(), [&](store::Transaction& c) {
    auto row = *c.outbox().get(id);
    row.state = "delivered";
    row.delivered_at = "2024-01-01T00:00:05.000Z";
    c.outbox().update(row);
  });
  auto back = read(db(), [&](store::Transaction& c) { return c.outbox().get(id); });
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->run_id, "runA");
  EXPECT_EQ(back->event, "run.finished");
  EXPECT_EQ(back->target_index, 3);
  EXPECT_EQ(back->target_json, e.target_json);
  EXPECT_EQ(back->payload_json, e.payload_json);
  EXPECT_EQ(back->state, "delivered");
  EXPECT_EQ(back->attempts, 1);
  EXPECT_EQ(back->next_attempt_ms, 1234);
  EXPECT_EQ(back->last_error, "timeout");
  EXPECT_EQ(back->created_at, e.created_at);
  EXPECT_EQ(back->delivered_at, "2024-01-01T00:00:05.000Z");
  EXPECT_FALSE(read(db(), [&](store::Transaction& c) { return c.outbox().get(id + 1000); }).has_value());
  EXPECT_EQ(read(db(), [](store::Transaction& c) { return c.outbox().next_due(); }), std::nullopt);
}

TEST_P(NotificationRepositoryTest, AnEntryIsClaimedForOneAttemptWhileItIsStillAsRead) {
  write(db(), [&](store::Transaction& c) { c.outbox().insert(make_entry("runA", "k", 0, 100)); });
  const auto id = read(db(), [](store::Transaction& c) { return c.outbox().due(1000, 10).at(0).id; });
  bool first = false, stale = true;
  write(db(), [&](store::Transaction& c) {
    first = c.outbox().claim(id, 100, 20000);
    stale = c.outbox().claim(id, 100, 30000);  // another daemon that read it due at 100
  });
  EXPECT_TRUE(first);
  EXPECT_FALSE(stale);
  EXPECT_TRUE(read(db(), [](store::Transaction& c) { return c.outbox().due(1000, 10); }).empty())
      << "not due again before the claim's deadline";
  EXPECT_EQ(read(db(), [](store::Transaction& c) { return c.outbox().due(20000, 10); }).size(), 1u)
      << "due again after it: the claimer may have died";
}

TEST_P(NotificationRepositoryTest, HeldRowsAreNeverDueUntilReleased) {
  write(db(), [&](store::Transaction& c) {
    for (const char* key : {"a", "b", "c"}) {
      auto e = make_entry("runA", key, 0, 10);
      e.state = "held";
      c.outbox().insert(e);
    }
  });
  EXPECT_TRUE(read(db(), [](store::Transaction& c) { return c.outbox().due(1000, 10); }).empty());
  EXPECT_EQ(read(db(), [](store::Transaction& c) { return c.outbox().next_due(); }), std::nullopt);
  auto rows = read(db(), [](store::Transaction& c) { return c.outbox().list_for_run("runA"); });
  write(db(), [&](store::Transaction& c) {
    c.outbox().release(rows[0].id, R"({"event":"run.finished","hooks":"done"})", 500);
    c.outbox().release(rows[0].id, "ignored: no longer held", 1);
  });
  auto released = read(db(), [&](store::Transaction& c) { return c.outbox().get(rows[0].id); });
  EXPECT_EQ(released->state, "pending");
  EXPECT_EQ(released->payload_json, R"({"event":"run.finished","hooks":"done"})");
  EXPECT_EQ(released->next_attempt_ms, 500);
  int count = 0;
  write(db(), [&](store::Transaction& c) { count = c.outbox().release_all_held(700); });
  EXPECT_EQ(count, 2);
  auto due = read(db(), [](store::Transaction& c) { return c.outbox().due(1000, 10); });
  ASSERT_EQ(due.size(), 3u);
  EXPECT_EQ(due[0].idempotency_key, "a");
  EXPECT_EQ(due[1].next_attempt_ms, 700);
  EXPECT_EQ(due[1].payload_json, rows[1].payload_json) << "released as it was held";
  write(db(), [&](store::Transaction& c) { count = c.outbox().release_all_held(900); });
  EXPECT_EQ(count, 0);
}

}  // namespace
}  // namespace agentry::sqlite_store

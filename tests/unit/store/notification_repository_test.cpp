#include "store/notification_repository.hpp"

#include "store/run_repository.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

namespace agentry::sqlite_store {
namespace {

using testing::make_run;
using testing::open_database;
using testing::read;
using testing::TempDir;
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

class NotificationRepositoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = open_database(dir_.path() / "agentry.db");
    write(*db_, [](store::Transaction& c) { c.runs().insert(make_run("runA")); });
  }
  TempDir dir_;
  std::unique_ptr<SqliteStore> db_;
};

TEST_F(NotificationRepositoryTest, AnEventIsQueuedOncePerTarget) {
  std::vector<bool> results;
  write(*db_, [&](store::Transaction& c) {
    results.push_back(c.outbox().insert(make_entry("runA", "k1", 0, 100)));
    results.push_back(c.outbox().insert(make_entry("runA", "k1", 1, 100)));
    results.push_back(c.outbox().insert(make_entry("runA", "k1", 0, 100)));  // the same again
  });
  EXPECT_EQ(results, (std::vector<bool>{true, true, false}));
  EXPECT_EQ(read(*db_, [](store::Transaction& c) { return c.outbox().list_for_run("runA"); }).size(), 2u);
}

TEST_F(NotificationRepositoryTest, OnlyPendingDueRowsAreDueOldestFirst) {
  write(*db_, [&](store::Transaction& c) {
    c.outbox().insert(make_entry("runA", "late", 0, 500));
    c.outbox().insert(make_entry("runA", "early", 0, 100));
    c.outbox().insert(make_entry("runA", "done", 0, 50));
  });
  write(*db_, [&](store::Transaction& c) {
    auto rows = c.outbox().list_for_run("runA");
    rows[2].state = "delivered";
    c.outbox().update(rows[2]);
  });
  auto due = read(*db_, [](store::Transaction& c) { return c.outbox().due(200, 10); });
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].idempotency_key, "early");
  EXPECT_EQ(read(*db_, [](store::Transaction& c) { return c.outbox().next_due(); }), std::optional<std::int64_t>(100));
  EXPECT_EQ(read(*db_, [](store::Transaction& c) { return c.outbox().due(1000, 10); }).size(), 2u);
}

TEST_F(NotificationRepositoryTest, AttemptsAreRecordedAndDeletingTheRunDropsItsRows) {
  write(*db_, [&](store::Transaction& c) { c.outbox().insert(make_entry("runA", "k", 0, 100)); });
  write(*db_, [&](store::Transaction& c) {
    auto e = c.outbox().list_for_run("runA").at(0);
    e.attempts = 2;
    e.last_error = "HTTP 500";
    e.next_attempt_ms = 9000;
    c.outbox().update(e);
  });
  auto e = read(*db_, [](store::Transaction& c) { return c.outbox().list_for_run("runA"); }).at(0);
  EXPECT_EQ(e.attempts, 2);
  EXPECT_EQ(e.last_error, "HTTP 500");
  EXPECT_EQ(e.state, "pending");
  EXPECT_EQ(e.next_attempt_ms, 9000);
  write(*db_, [](store::Transaction& c) { c.runs().remove("runA"); });
  EXPECT_TRUE(read(*db_, [](store::Transaction& c) { return c.outbox().list_for_run("runA"); }).empty());
}

}  // namespace
}  // namespace agentry::sqlite_store

#include "store/notification_repository.hpp"

#include "store/run_repository.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

namespace agentry::store {
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
    write(*db_, [](Connection& c) { RunRepository::insert(c, make_run("runA")); });
  }
  TempDir dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(NotificationRepositoryTest, AnEventIsQueuedOncePerTarget) {
  std::vector<bool> results;
  write(*db_, [&](Connection& c) {
    results.push_back(NotificationRepository::insert(c, make_entry("runA", "k1", 0, 100)));
    results.push_back(NotificationRepository::insert(c, make_entry("runA", "k1", 1, 100)));
    results.push_back(NotificationRepository::insert(c, make_entry("runA", "k1", 0, 100)));  // the same again
  });
  EXPECT_EQ(results, (std::vector<bool>{true, true, false}));
  EXPECT_EQ(read(*db_, [](Connection& c) { return NotificationRepository::list_for_run(c, "runA"); }).size(), 2u);
}

TEST_F(NotificationRepositoryTest, OnlyPendingDueRowsAreDueOldestFirst) {
  write(*db_, [&](Connection& c) {
    NotificationRepository::insert(c, make_entry("runA", "late", 0, 500));
    NotificationRepository::insert(c, make_entry("runA", "early", 0, 100));
    NotificationRepository::insert(c, make_entry("runA", "done", 0, 50));
  });
  write(*db_, [&](Connection& c) {
    auto rows = NotificationRepository::list_for_run(c, "runA");
    rows[2].state = "delivered";
    NotificationRepository::update(c, rows[2]);
  });
  auto due = read(*db_, [](Connection& c) { return NotificationRepository::due(c, 200, 10); });
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].idempotency_key, "early");
  EXPECT_EQ(read(*db_, [](Connection& c) { return NotificationRepository::next_due(c); }), std::optional<std::int64_t>(100));
  EXPECT_EQ(read(*db_, [](Connection& c) { return NotificationRepository::due(c, 1000, 10); }).size(), 2u);
}

TEST_F(NotificationRepositoryTest, AttemptsAreRecordedAndDeletingTheRunDropsItsRows) {
  write(*db_, [&](Connection& c) { NotificationRepository::insert(c, make_entry("runA", "k", 0, 100)); });
  write(*db_, [&](Connection& c) {
    auto e = NotificationRepository::list_for_run(c, "runA").at(0);
    e.attempts = 2;
    e.last_error = "HTTP 500";
    e.next_attempt_ms = 9000;
    NotificationRepository::update(c, e);
  });
  auto e = read(*db_, [](Connection& c) { return NotificationRepository::list_for_run(c, "runA"); }).at(0);
  EXPECT_EQ(e.attempts, 2);
  EXPECT_EQ(e.last_error, "HTTP 500");
  EXPECT_EQ(e.state, "pending");
  EXPECT_EQ(e.next_attempt_ms, 9000);
  write(*db_, [](Connection& c) { RunRepository::remove(c, "runA"); });
  EXPECT_TRUE(read(*db_, [](Connection& c) { return NotificationRepository::list_for_run(c, "runA"); }).empty());
}

}  // namespace
}  // namespace agentry::store

#include "store/queued_message_repository.hpp"

#include "store/run_repository.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agentry::store {
namespace {

using testing::make_run;
using testing::open_database;
using testing::read;
using testing::TempDir;
using testing::write;

core::QueuedMessage make_message(const std::string& run_id, const std::string& id, const std::string& text) {
  core::QueuedMessage m;
  m.id = id;
  m.run_id = run_id;
  m.text = text;
  m.source = {{"actor", "api"}};
  m.created_at = "2024-01-01T00:00:00.000Z";  // equal timestamps: order must not depend on them
  return m;
}

class QueuedMessageRepositoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = open_database(dir_.path() / "agentry.db");
    write(*db_, [](Connection& c) {
      for (const char* id : {"runA", "runB"}) RunRepository::insert(c, make_run(id));
    });
  }
  std::vector<core::QueuedMessage> list(const std::string& run_id) {
    return read(*db_, [&](Connection& c) { return QueuedMessageRepository::list(c, run_id); });
  }

  TempDir dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(QueuedMessageRepositoryTest, ListsInInsertionOrderWithTheirSource) {
  write(*db_, [](Connection& c) {
    // Ids sort the other way round, and timestamps tie: only insertion order is right.
    for (const char* id : {"qm_z", "qm_m", "qm_a"}) QueuedMessageRepository::insert(c, make_message("runA", id, id));
    QueuedMessageRepository::insert(c, make_message("runB", "qm_b", "other run"));
  });
  auto messages = list("runA");
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[0].id, "qm_z");
  EXPECT_EQ(messages[1].id, "qm_m");
  EXPECT_EQ(messages[2].id, "qm_a");
  EXPECT_EQ(messages[0].source.at("actor").as_string(), "api");
}

TEST_F(QueuedMessageRepositoryTest, TotalsCountMessagesAndBytes) {
  write(*db_, [](Connection& c) {
    QueuedMessageRepository::insert(c, make_message("runA", "qm_1", "abc"));
    QueuedMessageRepository::insert(c, make_message("runA", "qm_2", "h\xc3\xa9"));  // 3 bytes, 2 characters
  });
  auto totals = read(*db_, [](Connection& c) { return QueuedMessageRepository::totals(c, "runA"); });
  EXPECT_EQ(totals.count, 2);
  EXPECT_EQ(totals.bytes, 6);
  auto none = read(*db_, [](Connection& c) { return QueuedMessageRepository::totals(c, "runB"); });
  EXPECT_EQ(none.count, 0);
  EXPECT_EQ(none.bytes, 0);
}

TEST_F(QueuedMessageRepositoryTest, RemoveOneOrAllAndTheRunsThatHaveAny) {
  write(*db_, [](Connection& c) {
    QueuedMessageRepository::insert(c, make_message("runA", "qm_1", "one"));
    QueuedMessageRepository::insert(c, make_message("runA", "qm_2", "two"));
    QueuedMessageRepository::insert(c, make_message("runB", "qm_3", "three"));
  });
  auto runs = read(*db_, [](Connection& c) { return QueuedMessageRepository::run_ids(c); });
  EXPECT_EQ(runs.size(), 2u);
  bool removed = false, wrong_run = true;
  write(*db_, [&](Connection& c) {
    wrong_run = QueuedMessageRepository::remove(c, "runB", "qm_1");
    removed = QueuedMessageRepository::remove(c, "runA", "qm_1");
  });
  EXPECT_FALSE(wrong_run) << "a message is removed only through its own run";
  EXPECT_TRUE(removed);
  int cleared = 0;
  write(*db_, [&](Connection& c) { cleared = QueuedMessageRepository::remove_all(c, "runA"); });
  EXPECT_EQ(cleared, 1);
  EXPECT_TRUE(list("runA").empty());
  EXPECT_EQ(list("runB").size(), 1u);
}

TEST_F(QueuedMessageRepositoryTest, TheRunCountsItsQueueAndDeletingItCascades) {
  write(*db_, [](Connection& c) {
    QueuedMessageRepository::insert(c, make_message("runA", "qm_1", "one"));
    QueuedMessageRepository::insert(c, make_message("runA", "qm_2", "two"));
  });
  auto run = read(*db_, [](Connection& c) { return RunRepository::get(c, "runA"); });
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->queued_message_count, 2);
  auto page = read(*db_, [](Connection& c) { return RunRepository::list(c, RunQuery{}); });
  for (const auto& r : page.runs) EXPECT_EQ(r.queued_message_count, r.id == "runA" ? 2 : 0) << r.id;
  write(*db_, [](Connection& c) { RunRepository::remove(c, "runA"); });
  EXPECT_TRUE(list("runA").empty());
}

}  // namespace
}  // namespace agentry::store

#include "store/queued_message_repository.hpp"

#include "store/run_repository.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agentry::sqlite_store {
namespace {

using testing::make_run;
using testing::read;
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

class QueuedMessageRepositoryTest : public testing::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (IsSkipped()) return;
    write(db(), [](store::Transaction& c) {
      for (const char* id : {"runA", "runB"}) c.runs().insert(make_run(id));
    });
  }
  std::vector<core::QueuedMessage> list(const std::string& run_id) {
    return read(db(), [&](store::Transaction& c) { return c.queued_messages().list(run_id); });
  }
};

AGENTRY_STORE_TEST_ON_EVERY_ENGINE(QueuedMessageRepositoryTest);

TEST_P(QueuedMessageRepositoryTest, ListsInInsertionOrderWithTheirSource) {
  write(db(), [](store::Transaction& c) {
    // Ids sort the other way round, and timestamps tie: only insertion order is right.
    for (const char* id : {"qm_z", "qm_m", "qm_a"}) c.queued_messages().insert(make_message("runA", id, id));
    c.queued_messages().insert(make_message("runB", "qm_b", "other run"));
  });
  auto messages = list("runA");
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[0].id, "qm_z");
  EXPECT_EQ(messages[1].id, "qm_m");
  EXPECT_EQ(messages[2].id, "qm_a");
  EXPECT_EQ(messages[0].source.at("actor").as_string(), "api");
}

TEST_P(QueuedMessageRepositoryTest, AMessageWithADamagedSourceIsStillListed) {
  write(db(), [](store::Transaction& c) {
    c.queued_messages().insert(make_message("runA", "qm_1", "one"));
    testing::query_int(c, "UPDATE queued_messages SET source_json = '[1,' WHERE id = 'qm_1' RETURNING 1");
  });
  auto messages = list("runA");
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].text, "one");
  EXPECT_TRUE(messages[0].source.empty());
}

TEST_P(QueuedMessageRepositoryTest, TotalsCountMessagesAndBytes) {
  write(db(), [](store::Transaction& c) {
    c.queued_messages().insert(make_message("runA", "qm_1", "abc"));
    c.queued_messages().insert(make_message("runA", "qm_2", "h\xc3\xa9"));  // 3 bytes, 2 characters
  });
  auto totals = read(db(), [](store::Transaction& c) { return c.queued_messages().totals("runA"); });
  EXPECT_EQ(totals.count, 2);
  EXPECT_EQ(totals.bytes, 6);
  auto none = read(db(), [](store::Transaction& c) { return c.queued_messages().totals("runB"); });
  EXPECT_EQ(none.count, 0);
  EXPECT_EQ(none.bytes, 0);
}

TEST_P(QueuedMessageRepositoryTest, RemoveOneOrAllAndTheRunsThatHaveAny) {
  write(db(), [](store::Transaction& c) {
    c.queued_messages().insert(make_message("runA", "qm_1", "one"));
    c.queued_messages().insert(make_message("runA", "qm_2", "two"));
    c.queued_messages().insert(make_message("runB", "qm_3", "three"));
  });
  auto runs = read(db(), [](store::Transaction& c) { return c.queued_messages().run_ids(); });
  EXPECT_EQ(runs.size(), 2u);
  bool removed = false, wrong_run = true;
  write(db(), [&](store::Transaction& c) {
    wrong_run = c.queued_messages().remove("runB", "qm_1");
    removed = c.queued_messages().remove("runA", "qm_1");
  });
  EXPECT_FALSE(wrong_run) << "a message is removed only through its own run";
  EXPECT_TRUE(removed);
  int cleared = 0;
  write(db(), [&](store::Transaction& c) { cleared = c.queued_messages().remove_all("runA"); });
  EXPECT_EQ(cleared, 1);
  EXPECT_TRUE(list("runA").empty());
  EXPECT_EQ(list("runB").size(), 1u);
}

TEST_P(QueuedMessageRepositoryTest, TheRunCountsItsQueueAndDeletingItCascades) {
  write(db(), [](store::Transaction& c) {
    c.queued_messages().insert(make_message("runA", "qm_1", "one"));
    c.queued_messages().insert(make_message("runA", "qm_2", "two"));
  });
  auto run = read(db(), [](store::Transaction& c) { return c.runs().get("runA"); });
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->queued_message_count, 2);
  auto page = read(db(), [](store::Transaction& c) { return c.runs().list(core::RunQuery{}); });
  for (const auto& r : page.runs) EXPECT_EQ(r.queued_message_count, r.id == "runA" ? 2 : 0) << r.id;
  write(db(), [](store::Transaction& c) { c.runs().remove("runA"); });
  EXPECT_TRUE(list("runA").empty());
}

}  // namespace
}  // namespace agentry::sqlite_store

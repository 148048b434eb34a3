#include "store/parent_notification_repository.hpp"

#include "store/run_repository.hpp"
#include "store/session_repository.hpp"
#include "store_test_support.hpp"

#include <gtest/gtest.h>

#include <string>

namespace agentry::sqlite_store {
namespace {

using testing::make_run;
using testing::read;
using testing::write;

core::ParentNotification pending(const std::string& child, int session) {
  core::ParentNotification n;
  n.child_run_id = child;
  n.child_session_index = session;
  n.parent_run_id = "parent";
  n.state = "pending";
  n.created_at = n.updated_at = "2024-01-01T00:00:00.000Z";
  return n;
}

class ParentNotificationRepositoryTest : public testing::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (IsSkipped()) return;
    write(db(), [](store::Transaction& c) {
      for (const char* id : {"parent", "child", "other"}) c.runs().insert(make_run(id));
    });
  }
};

AGENTRY_STORE_TEST_ON_EVERY_ENGINE(ParentNotificationRepositoryTest);

TEST_P(ParentNotificationRepositoryTest, PendingRowsBecomeDeliveredInPlace) {
  write(db(), [](store::Transaction& c) {
    c.parent_notifications().upsert(pending("child", 0));
    c.parent_notifications().upsert(pending("child", 1));
    c.parent_notifications().upsert(pending("other", 0));
  });
  auto rows = read(db(), [](store::Transaction& c) { return c.parent_notifications().pending("child"); });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].child_session_index, 0);
  EXPECT_EQ(rows[1].child_session_index, 1);
  EXPECT_EQ(read(db(), [](store::Transaction& c) { return c.parent_notifications().children_with_pending(); }).size(), 2u);

  write(db(), [&](store::Transaction& c) {
    auto n = rows[1];
    n.state = "delivered";
    n.delivery = "resumed";
    n.delivered_at = "2024-01-01T00:00:01.000Z";
    c.parent_notifications().upsert(n);
  });
  auto latest = read(db(), [](store::Transaction& c) { return c.parent_notifications().latest("child"); });
  ASSERT_TRUE(latest);
  EXPECT_EQ(latest->child_session_index, 1);
  EXPECT_EQ(latest->state, "delivered");
  EXPECT_EQ(latest->delivery, "resumed");
  EXPECT_EQ(latest->delivered_at, "2024-01-01T00:00:01.000Z");
  EXPECT_EQ(read(db(), [](store::Transaction& c) { return c.parent_notifications().pending("child"); }).size(), 1u);

  int removed = 0;
  write(db(), [&](store::Transaction& c) { removed = c.parent_notifications().remove_all("child"); });
  EXPECT_EQ(removed, 2);
  EXPECT_FALSE(read(db(), [](store::Transaction& c) { return c.parent_notifications().latest("child"); }));
}

TEST_P(ParentNotificationRepositoryTest, DeletingTheChildDeletesItsRows) {
  write(db(), [](store::Transaction& c) { c.parent_notifications().upsert(pending("other", 0)); });
  write(db(), [](store::Transaction& c) { c.runs().remove("other"); });
  EXPECT_TRUE(read(db(), [](store::Transaction& c) { return c.parent_notifications().children_with_pending(); }).empty());
}

TEST_P(ParentNotificationRepositoryTest, SessionsKeepTheirSourceMetadata) {
  write(db(), [](store::Transaction& c) {
    core::Session s;
    s.run_id = "parent";
    s.index = 0;
    s.status = "running";
    s.started_at = "2024-01-01T00:00:00.000Z";
    s.source = {{"kind", "child_completion"}, {"childRunId", "child"}, {"childSessionIndex", 0}};
    c.sessions().insert(s);
    s.index = 1;
    s.source = {};
    c.sessions().insert(s);
  });
  auto sessions = read(db(), [](store::Transaction& c) { return c.sessions().list("parent"); });
  ASSERT_EQ(sessions.size(), 2u);
  EXPECT_EQ(sessions[0].source.at("childRunId"), "child");
  EXPECT_TRUE(sessions[1].source.empty());
}

}  // namespace
}  // namespace agentry::sqlite_store
